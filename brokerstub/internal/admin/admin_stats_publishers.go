package admin

import (
	"maps"
	"slices"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
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

// MergePublishers merges the publishers of each partition (one list per
// partition).
func MergePublishers(parts [][]*engine.PublisherStats) []*engine.MergedPublisherStats {
	var byIndex []*engine.MergedPublisherStats
	byName := map[string]*engine.MergedPublisherStats{}
	for _, pubs := range parts {
		pubs = slices.Clone(pubs)
		slices.SortStableFunc(pubs, engine.ByProducerName)
		i := 0
		for _, p := range pubs {
			if name := p.ProducerName; p.SupportsPartialProducer && name != "" {
				e := byName[name]
				if e == nil {
					e = &engine.MergedPublisherStats{SupportsPartialProducer: true, ProducerName: name}
					byName[name] = e
				}
				e.Add(p)
				continue
			}
			if i == len(byIndex) {
				byIndex = append(byIndex, &engine.MergedPublisherStats{})
			}
			byIndex[i].Add(p)
			i++
		}
	}
	out := byIndex
	if out == nil {
		out = []*engine.MergedPublisherStats{}
	}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[name])
	}
	return out
}
