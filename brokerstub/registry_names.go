package brokerstub

import "sort"

// topicNames returns every known topic: those loaded, those stored and the
// partitions of partitioned topics, sorted.
func (b *engine) topicNames() []string {
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
	for base, n := range b.partitionedTopics() {
		if tn, err := parseTopic(base); err == nil && tn.Domain == nonPersistentDomain {
			continue // a non-persistent partition is a topic only while loaded, as in Pulsar
		}
		for i := 0; i < n; i++ {
			seen[partitionName(base, i)] = true
		}
	}
	out := make([]string, 0, len(seen))
	for t := range seen {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
