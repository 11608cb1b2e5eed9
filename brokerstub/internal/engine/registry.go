package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrTopicNotFound is returned for an unknown topic when auto topic
// creation is off.
var ErrTopicNotFound = errors.New("topic not found")

// GetTopic returns the loaded topic, loading it from the store or, when
// create is set, creating it.
func (b *Engine) GetTopic(name TopicName, create bool) (*Topic, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return nil, ErrClosed
	}
	if t, ok := b.topics[name.Full]; ok {
		return t, nil
	}
	if !create && !b.storedLocked(name) {
		return nil, fmt.Errorf("%w: %s", ErrTopicNotFound, name.Full)
	}
	t, err := b.openTopic(name)
	if err != nil {
		return nil, err
	}
	b.topics[name.Full] = t
	return t, nil
}

// TopicForUse is getTopic with the broker's auto-creation rule, for
// producers and subscriptions; it refuses non-persistent topics when they
// are off and a new topic beyond its namespace's max topics (limits.go).
func (b *Engine) TopicForUse(name TopicName) (*Topic, error) {
	if err := b.refuseNonPersistent(name); err != nil {
		return nil, err
	}
	if err := b.refusePersistent(name); err != nil { // gates.go
		return nil, err
	}
	existed := b.TopicExists(name)
	create := b.AutoTopicAllowed(name) || existed
	if create && !existed && b.topicsOver(name, 1) {
		return nil, errTooManyTopics
	}
	t, err := b.GetTopic(name, create)
	if err == nil && !existed {
		b.topicsChanged() // auto-created: tell the topic-list watchers
	}
	return t, err
}

// TopicExists reports whether the topic is loaded, stored, or a partition
// of a partitioned topic.
func (b *Engine) TopicExists(name TopicName) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, loaded := b.topics[name.Full]
	return loaded || b.storedLocked(name)
}

func (b *Engine) storedLocked(name TopicName) bool {
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
func (b *Engine) PartitionCountOf(name TopicName) int {
	if name.Partition >= 0 {
		return 0
	}
	return b.PartitionCount(name.Full)
}

func (b *Engine) PartitionCount(full string) int {
	parts, err := b.st.Partitions()
	if err != nil {
		return 0
	}
	return parts[full]
}

func (b *Engine) PartitionedTopics() map[string]int {
	parts, err := b.st.Partitions()
	if err != nil {
		b.log.Warn("list partitioned topics", "err", err)
	}
	return parts
}

// CreatePartitionedTopic is Broker.CreatePartitionedTopic.
func (b *Engine) CreatePartitionedTopic(topic string, n int) error {
	name, err := ParseTopic(topic)
	if err != nil {
		return err
	}
	if name.Partition >= 0 {
		return fmt.Errorf("%w: %q names a partition", ErrInvalidTopic, topic)
	}
	if n < 1 {
		return fmt.Errorf("brokerstub: partitions must be >= 1, got %d", n)
	}
	if cur := b.PartitionCount(name.Full); cur != 0 && cur != n {
		return fmt.Errorf("brokerstub: %s already has %d partitions", name.Full, cur)
	}
	if err := b.st.SetPartitions(name.Full, n); err != nil {
		return err
	}
	b.topicsChanged()
	return nil
}

// Unload is Broker.Unload.
func (b *Engine) Unload(topicName string) error {
	name, err := ParseTopic(topicName)
	if err != nil {
		return err
	}
	b.mu.Lock()
	var ts []*Topic
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
		_ = t.Call(func() {
			t.flushCursors(true)
			t.closeClients()
		})
		t.stop(true)
	}
	return nil
}

// AutoCreatePartitions applies autoTopicPartitions to a topic that
// does not exist yet; it returns its partition count (0: non-partitioned).
func (b *Engine) AutoCreatePartitions(name TopicName) (int, error) {
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

// NamespaceTopics lists the topics of ns (partitions by their names, as
// Pulsar does) of the mode PERSISTENT, NON_PERSISTENT or ALL.
func (b *Engine) NamespaceTopics(ns, mode string) []string {
	out := []string{}
	for _, full := range b.TopicNames() {
		n, err := ParseTopic(full)
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
