package brokerstub

import (
	"github.com/pulsargo/sdk/internal/topicname"
)

// errInvalidTopic is wrapped by topic-name parsing errors.
var errInvalidTopic = topicname.ErrInvalid

// topicName is a fully qualified topic name,
// persistent://tenant/namespace/local[-partition-N], as the client side
// parses it: one definition for both.
type topicName = topicname.Name

// parseTopic accepts the forms Pulsar clients send: "local",
// "tenant/ns/local" and "domain://tenant/ns/local", as Pulsar's TopicName does.
func parseTopic(s string) (topicName, error) { return topicname.Parse(s) }

// partitionName returns the name of partition i of base.
func partitionName(base string, i int) string { return topicname.PartitionName(base, i) }
