package engine

import "sort"

// TopicNames returns every known topic: those loaded, those stored and the
// partitions of partitioned topics, sorted.
func (b *Engine) TopicNames() []string {
	seen := map[string]bool{}
	stored, err := b.st.Topics()
	if err != nil {
		b.log.Warn("list stored topics", "err", err)
	}
	for _, t := range stored {
		seen[t] = true
	}
	b.mu.Lock()
	for t := range b.topics {
		seen[t] = true
	}
	b.mu.Unlock()
	for base, n := range b.PartitionedTopics() {
		if tn, err := ParseTopic(base); err == nil && tn.Domain == NonPersistentDomain {
			continue // a non-persistent partition is a topic only while loaded, as in Pulsar
		}
		for i := 0; i < n; i++ {
			seen[PartitionName(base, i)] = true
		}
	}
	out := make([]string, 0, len(seen))
	for t := range seen {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
