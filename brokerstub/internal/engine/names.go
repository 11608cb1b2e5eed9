package engine

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/topicname"
)

// ErrInvalidTopic is wrapped by topic-name parsing errors.
var ErrInvalidTopic = topicname.ErrInvalid

// TopicName is a fully qualified topic name,
// persistent://tenant/namespace/local[-partition-N], as the client side
// parses it: one definition for both.
type TopicName = topicname.Name

// ParseTopic accepts the forms Pulsar clients send: "local",
// "tenant/ns/local" and "domain://tenant/ns/local", as Pulsar's TopicName does.
func ParseTopic(s string) (TopicName, error) { return topicname.Parse(s) }

// PartitionName returns the name of partition i of base.
func PartitionName(base string, i int) string { return topicname.PartitionName(base, i) }

func PosString(p ledger.Position) string { return fmt.Sprintf("%d:%d", p.Ledger, p.Entry) }

var subTypeNames = map[proto.CommandSubscribe_SubType]string{
	proto.CommandSubscribe_Exclusive: "Exclusive", proto.CommandSubscribe_Shared: "Shared",
	proto.CommandSubscribe_Failover: "Failover", proto.CommandSubscribe_Key_Shared: "Key_Shared",
}

func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '-', r == '_', r == '=', r == ':', r == '.':
		default:
			return false
		}
	}
	return true
}

// SplitPath splits the escaped path into unescaped segments.
func SplitPath(escaped string) ([]string, bool) {
	raw := strings.Split(strings.Trim(escaped, "/"), "/")
	out := make([]string, len(raw))
	for i, s := range raw {
		u, err := url.PathUnescape(s)
		if err != nil {
			return nil, false
		}
		out[i] = u
	}
	return out, true
}
