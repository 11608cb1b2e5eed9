package brokerstub

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// errInvalidTopic is wrapped by topic-name parsing errors.
var errInvalidTopic = errors.New("invalid topic name")

// partitionSuffix separates a partitioned topic's name from a partition index.
const partitionSuffix = "-partition-"

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
	if s == "" {
		return topicName{}, fmt.Errorf("%w: empty", errInvalidTopic)
	}
	domain, rest, ok := strings.Cut(s, "://")
	if !ok {
		domain, rest = "persistent", s
		if !strings.Contains(s, "/") {
			rest = "public/default/" + s
		}
	}
	if domain != "persistent" && domain != "non-persistent" {
		return topicName{}, fmt.Errorf("%w: %q: unknown domain %q", errInvalidTopic, s, domain)
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return topicName{}, fmt.Errorf("%w: %q: want tenant/namespace/topic", errInvalidTopic, s)
	}
	t := topicName{
		full:      domain + "://" + rest,
		domain:    domain,
		namespace: parts[0] + "/" + parts[1],
		partition: -1,
	}
	t.base = t.full
	if i := strings.LastIndex(t.full, partitionSuffix); i > 0 {
		if n, err := strconv.Atoi(t.full[i+len(partitionSuffix):]); err == nil && n >= 0 {
			t.partition = n
			t.base = t.full[:i]
		}
	}
	return t, nil
}

// partitionName returns the name of partition i of base.
func partitionName(base string, i int) string {
	return base + partitionSuffix + strconv.Itoa(i)
}
