package brokerstub

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// errTopicNotFound is returned for an unknown topic when auto topic
// creation is off.
var errTopicNotFound = errors.New("topic not found")

// getTopic returns the loaded topic, loading it from the store or, when
// create is set, creating it.
func (b *engine) getTopic(name topicName, create bool) (*topic, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return nil, ErrClosed
	}
	if t, ok := b.topics[name.Full]; ok {
		return t, nil
	}
	if !create && !b.storedLocked(name) {
		return nil, fmt.Errorf("%w: %s", errTopicNotFound, name.Full)
	}
	t, err := b.openTopic(name)
	if err != nil {
		return nil, err
	}
	b.topics[name.Full] = t
	return t, nil
}

// topicForUse is getTopic with the broker's auto-creation rule, for
// producers and subscriptions; it refuses non-persistent topics when they
// are off and a new topic beyond its namespace's max topics (limits.go).
func (b *engine) topicForUse(name topicName) (*topic, error) {
	if err := b.refuseNonPersistent(name); err != nil {
		return nil, err
	}
	if err := b.refusePersistent(name); err != nil { // gates.go
		return nil, err
	}
	existed := b.topicExists(name)
	create := b.autoTopicAllowed(name) || existed
	if create && !existed && b.topicsOver(name, 1) {
		return nil, errTooManyTopics
	}
	t, err := b.getTopic(name, create)
	if err == nil && !existed {
		b.topicsChanged() // auto-created: tell the topic-list watchers
	}
	return t, err
}

// topicExists reports whether the topic is loaded, stored, or a partition
// of a partitioned topic.
func (b *engine) topicExists(name topicName) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, loaded := b.topics[name.Full]
	return loaded || b.storedLocked(name)
}

func (b *engine) storedLocked(name topicName) bool {
	parts, _ := b.st.Partitions()
	if n, ok := parts[name.Base]; ok && (name.Partition < 0 || name.Partition < n) {
		return true
	}
	stored, _ := b.st.Topics()
	return slices.Contains(stored, name.Full)
}

// partitionCount returns the number of partitions of a partitioned topic,
// or 0.
// partitionCountOf is the partition count of a partitioned topic's name, 0 for
// a non-partitioned topic and for the name of a partition itself.
func (b *engine) partitionCountOf(name topicName) int {
	if name.Partition >= 0 {
		return 0
	}
	return b.partitionCount(name.Full)
}

func (b *engine) partitionCount(full string) int {
	parts, err := b.st.Partitions()
	if err != nil {
		return 0
	}
	return parts[full]
}

func (b *engine) partitionedTopics() map[string]int {
	parts, err := b.st.Partitions()
	if err != nil {
		b.log.Warn("list partitioned topics", "err", err)
	}
	return parts
}

// createPartitionedTopic is Broker.CreatePartitionedTopic.
func (b *engine) createPartitionedTopic(topic string, n int) error {
	name, err := parseTopic(topic)
	if err != nil {
		return err
	}
	if name.Partition >= 0 {
		return fmt.Errorf("%w: %q names a partition", errInvalidTopic, topic)
	}
	if n < 1 {
		return fmt.Errorf("brokerstub: partitions must be >= 1, got %d", n)
	}
	if cur := b.partitionCount(name.Full); cur != 0 && cur != n {
		return fmt.Errorf("brokerstub: %s already has %d partitions", name.Full, cur)
	}
	if err := b.st.SetPartitions(name.Full, n); err != nil {
		return err
	}
	b.topicsChanged()
	return nil
}

// unload is Broker.Unload.
func (b *engine) unload(topicName string) error {
	name, err := parseTopic(topicName)
	if err != nil {
		return err
	}
	b.mu.Lock()
	var ts []*topic
	if t, ok := b.topics[name.Full]; ok {
		ts = append(ts, t)
		delete(b.topics, name.Full)
	}
	if name.Partition < 0 {
		for full, t := range b.topics {
			if t.name.Base == name.Full {
				ts = append(ts, t)
				delete(b.topics, full)
			}
		}
	}
	b.mu.Unlock()
	for _, t := range ts {
		// Cursors are made durable before the clients are told to go: a
		// client that reconnects at once loads the topic again from the
		// store, and must not be sent what it acknowledged.
		_ = t.call(func() {
			t.flushCursors(true)
			t.closeClients()
		})
		t.stop(true)
	}
	return nil
}

// autoCreatePartitions applies autoTopicPartitions to a topic that
// does not exist yet; it returns its partition count (0: non-partitioned).
func (b *engine) autoCreatePartitions(name topicName) (int, error) {
	n := b.autoTopicPartitions(name) // autotopic_policy.go
	if n <= 0 || name.Partition >= 0 {
		return 0, nil
	}
	if err := b.refuseAutoPartitioned(name, n); err != nil { // limits_admin.go
		return 0, err
	}
	if err := b.st.SetPartitions(name.Full, n); err != nil {
		return 0, err
	}
	return n, nil
}

// maxPartitions bounds the partitions of a topic created or grown over the
// admin API: operations on a partitioned topic touch every partition, so
// the count a request claims must not size what the broker allocates.
// Pulsar's maxNumPartitionsPerPartitionedTopic (0, unlimited, by default)
// is refused with the same 406 and reason.
const maxPartitions = 1000

// namespaceTopics lists the topics of ns (partitions by their names, as
// Pulsar does) of the mode PERSISTENT, NON_PERSISTENT or ALL.
func (b *engine) namespaceTopics(ns, mode string) []string {
	out := []string{}
	for _, full := range b.topicNames() {
		n, err := parseTopic(full)
		if err != nil || n.Namespace != ns || strings.Contains(full, "/__change_events") {
			continue
		}
		if (mode == "PERSISTENT" && n.Domain != "persistent") || (mode == "NON_PERSISTENT" && n.Domain == "persistent") {
			continue
		}
		out = append(out, full)
	}
	return out
}
