// Package topicname parses Pulsar topic names the way Pulsar's TopicName
// does: "my-topic", "tenant/ns/my-topic" and "persistent://tenant/ns/my-topic"
// all name the same topic, and "-partition-N" names partition N of a
// partitioned topic.
//
//	n, _ := topicname.Parse("orders-partition-2")
//	n.Full      // persistent://public/default/orders-partition-2
//	n.Base      // persistent://public/default/orders
//	n.Partition // 2
package topicname

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrInvalid is wrapped by every parse error.
var ErrInvalid = errors.New("invalid topic name")

// PartitionSuffix separates a partitioned topic's name from the index.
const PartitionSuffix = "-partition-"

// Name is a parsed, fully qualified topic name.
type Name struct {
	// Full is domain://tenant/namespace/local[-partition-N].
	Full string
	// Domain is "persistent" or "non-persistent".
	Domain string
	// Namespace is "tenant/namespace".
	Namespace string
	// Base is Full without a partition suffix.
	Base string
	// Partition is the partition index, or -1 for a name without suffix.
	Partition int
}

// Parse reads a topic name in any of the forms Pulsar clients accept; the
// default tenant and namespace are public/default and the default domain
// persistent.
func Parse(s string) (Name, error) {
	if s == "" {
		return Name{}, fmt.Errorf("%w: empty", ErrInvalid)
	}
	domain, rest, ok := strings.Cut(s, "://")
	if !ok {
		domain, rest = "persistent", s
		if !strings.Contains(s, "/") {
			rest = "public/default/" + s
		}
	}
	if domain != "persistent" && domain != "non-persistent" {
		return Name{}, fmt.Errorf("%w: %q: unknown domain %q", ErrInvalid, s, domain)
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return Name{}, fmt.Errorf("%w: %q: want tenant/namespace/topic", ErrInvalid, s)
	}
	n := Name{Full: domain + "://" + rest, Domain: domain, Namespace: parts[0] + "/" + parts[1], Partition: -1}
	n.Base = n.Full
	if i := strings.LastIndex(n.Full, PartitionSuffix); i > 0 {
		if p, err := strconv.Atoi(n.Full[i+len(PartitionSuffix):]); err == nil && p >= 0 {
			n.Partition, n.Base = p, n.Full[:i]
		}
	}
	return n, nil
}

// PartitionName returns the name of partition i of the topic base.
func PartitionName(base string, i int) string {
	return base + PartitionSuffix + strconv.Itoa(i)
}
