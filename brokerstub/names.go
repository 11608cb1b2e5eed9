package brokerstub

import (
	"github.com/pulsargo/sdk/internal/topicname"
)

// errInvalidTopic is wrapped by topic-name parsing errors.
var errInvalidTopic = topicname.ErrInvalid

// topicName is a fully qualified topic name:
// persistent://tenant/namespace/local[-partition-N].
type topicName struct {
	full      string // persistent://tenant/ns/local-partition-N
	domain    string // persistent or non-persistent
	namespace string // tenant/ns
	base      string // full name without the partition suffix
	partition int    // -1 when the name has no partition suffix
}

// parseTopic accepts the forms Pulsar clients send: "local",
// "tenant/ns/local" and "domain://tenant/ns/local", as Pulsar's TopicName does.
func parseTopic(s string) (topicName, error) {
	n, err := topicname.Parse(s)
	if err != nil {
		return topicName{}, err
	}
	return topicName{full: n.Full, domain: n.Domain, namespace: n.Namespace, base: n.Base, partition: n.Partition}, nil
}

// partitionName returns the name of partition i of base.
func partitionName(base string, i int) string { return topicname.PartitionName(base, i) }
