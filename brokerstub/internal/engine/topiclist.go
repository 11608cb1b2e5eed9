package engine

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"regexp"
	"slices"
	"strings"
)

// SubscriptionPatternMaxLength is the longest topics pattern the broker
// evaluates, Pulsar's subscriptionPatternMaxLength default (50). A longer
// pattern is not applied to GET_TOPICS_OF_NAMESPACE (the answer is not
// filtered, and the client filters) and refuses a topic-list watcher.
const SubscriptionPatternMaxLength = 50

// TopicsHash is the hash of a topic list that Pulsar's clients compare,
// TopicList.calculateHash: CRC32C over the sorted names joined by ',', shown
// as Guava's HashCode.toString does for a 32-bit hash (its four bytes
// least significant first, as lowercase hex).
func TopicsHash(topics []string) string {
	sorted := slices.Clone(topics)
	slices.Sort(sorted)
	h := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	for i, t := range sorted {
		if i > 0 {
			_, _ = h.Write([]byte{','})
		}
		_, _ = h.Write([]byte(t))
	}
	sum := h.Sum32()
	return hex.EncodeToString([]byte{byte(sum), byte(sum >> 8), byte(sum >> 16), byte(sum >> 24)})
}

// TopicsPattern is a compiled topics pattern as Pulsar's broker applies it:
// the domain scheme is removed from the pattern and from the names, the
// names are matched without their partition suffix, and the whole name must
// match (Java's Matcher.matches).
type TopicsPattern struct{ re *regexp.Regexp }

// ErrPatternScheme is returned for a pattern whose scheme is neither
// persistent:// nor non-persistent://.
var ErrPatternScheme = errors.New("does not support topic domain")

// CompileTopicsPattern compiles a pattern such as
// "persistent://public/default/orders-.*".
func CompileTopicsPattern(p string) (TopicsPattern, error) {
	p, err := removeDomainScheme(p)
	if err != nil {
		return TopicsPattern{}, err
	}
	re, err := regexp.Compile(`^(?:` + p + `)$`)
	if err != nil {
		return TopicsPattern{}, err
	}
	return TopicsPattern{re: re}, nil
}

// removeDomainScheme drops "persistent://" or "non-persistent://" from a
// pattern, keeping what comes before the domain (a "^", say), as Pulsar's
// TopicList.removeTopicDomainScheme.
func removeDomainScheme(p string) (string, error) {
	prefix, rest, ok := strings.Cut(p, "://")
	if !ok {
		return p, nil
	}
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[:i] // Java's split keeps only the part after the first separator
	}
	switch {
	case prefix == "persistent" || prefix == "non-persistent":
		prefix = ""
	case strings.HasSuffix(prefix, "non-persistent"):
		prefix = strings.TrimSuffix(prefix, "non-persistent")
	case strings.HasSuffix(prefix, "persistent"):
		prefix = strings.TrimSuffix(prefix, "persistent")
	default:
		return "", ErrPatternScheme
	}
	return prefix + rest, nil
}

// Matches reports whether the topic (a full name, maybe a partition)
// matches.
func (p TopicsPattern) Matches(full string) bool {
	name, err := ParseTopic(full)
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(name.Base, "://")
	return p.re.MatchString(rest)
}

// Filter returns the topics that match, in order.
func (p TopicsPattern) Filter(topics []string) []string {
	var out []string
	for _, t := range topics {
		if p.Matches(t) {
			out = append(out, t)
		}
	}
	return out
}

// isSystemTopic reports whether the topic is one of Pulsar's system topics
// (SystemTopicNames.isSystemTopic), which topic lists leave out.
func isSystemTopic(full string) bool {
	name, err := ParseTopic(full)
	if err != nil {
		return false
	}
	base := name.Base
	local := base[strings.LastIndexByte(base, '/')+1:]
	switch local {
	case "__change_events", "__transaction_buffer_snapshot",
		"__transaction_buffer_snapshot_segments", "__transaction_buffer_snapshot_indexes":
		return true
	}
	return strings.HasPrefix(base, "persistent://pulsar/system/transaction_coordinator_assign") ||
		strings.HasPrefix(base, "persistent://pulsar/system/__transaction_log_") ||
		strings.HasSuffix(base, "__transaction_pending_ack")
}

// ListNamespaceTopics lists the topics of namespace ns in the given mode
// (persistent, non-persistent or both), partitions by their partition
// names, system topics left out, sorted.
func (b *Engine) ListNamespaceTopics(ns string, persistent, nonPersistent bool) []string {
	var out []string
	for _, full := range b.TopicNames() {
		t, err := ParseTopic(full)
		if err != nil || t.Namespace != ns || isSystemTopic(full) {
			continue
		}
		if p := t.Domain == "persistent"; (p && persistent) || (!p && nonPersistent) {
			out = append(out, full)
		}
	}
	return out
}

// ParseNamespace checks a namespace name, "tenant/namespace".
func ParseNamespace(ns string) (string, error) {
	tenant, local, ok := strings.Cut(ns, "/")
	if !ok || tenant == "" || local == "" || strings.Contains(local, "/") {
		return "", fmt.Errorf("invalid namespace name %q", ns)
	}
	return ns, nil
}
