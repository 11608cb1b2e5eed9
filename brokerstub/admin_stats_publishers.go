package brokerstub

import (
	"maps"
	"slices"
)

// Publishers of a partitioned topic's stats, merged as Pulsar's
// TopicStatsImpl.add does: each partition lists its publishers sorted by
// name; the i-th publisher of every partition is added into the i-th entry
// of the total, which keeps no name, address or id of its own (a
// partitioned producer has one publisher per partition, so it is one entry
// there). A publisher whose stats say supportsPartialProducer — only when
// Gates.AggregatePublisherStatsByProducerName is on and its client
// announced supports_partial_producer at CONNECT — is added into an entry
// of its producer name instead; those entries come after the others,
// sorted by name. Adding sums the rates and averages averageMsgSize.

// mergePublishers merges the publishers of each partition (one list per
// partition).
func mergePublishers(parts [][]*publisherStats) []*mergedPublisherStats {
	var byIndex []*mergedPublisherStats
	byName := map[string]*mergedPublisherStats{}
	for _, pubs := range parts {
		pubs = slices.Clone(pubs)
		slices.SortStableFunc(pubs, byProducerName)
		i := 0
		for _, p := range pubs {
			if name := p.ProducerName; p.SupportsPartialProducer && name != "" {
				e := byName[name]
				if e == nil {
					e = &mergedPublisherStats{SupportsPartialProducer: true, ProducerName: name}
					byName[name] = e
				}
				e.add(p)
				continue
			}
			if i == len(byIndex) {
				byIndex = append(byIndex, &mergedPublisherStats{})
			}
			byIndex[i].add(p)
			i++
		}
	}
	out := byIndex
	if out == nil {
		out = []*mergedPublisherStats{}
	}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[name])
	}
	return out
}
