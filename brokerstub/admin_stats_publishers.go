package brokerstub

import (
	"cmp"
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

// byProducerName orders publisher stats by producerName.
func byProducerName(a, b map[string]any) int {
	an, _ := a["producerName"].(string)
	bn, _ := b["producerName"].(string)
	return cmp.Compare(an, bn)
}

// supportsPartial is a publisher's supportsPartialProducer for its stats.
func (t *topic) supportsPartial(p *producer) bool {
	return t.b.opts.Gates.AggregatePublisherStatsByProducerName && p.peer.partialProducer()
}

// mergePublishers merges the publishers of each partition (one list per
// partition).
func mergePublishers(parts [][]map[string]any) []map[string]any {
	var byIndex []map[string]any
	byName := map[string]map[string]any{}
	for _, pubs := range parts {
		pubs = slices.Clone(pubs)
		slices.SortStableFunc(pubs, byProducerName)
		i := 0
		for _, p := range pubs {
			name, _ := p["producerName"].(string)
			if partial, _ := p["supportsPartialProducer"].(bool); partial && name != "" {
				e := byName[name]
				if e == nil {
					e = newMergedPublisher(true)
					e["producerName"] = name
					byName[name] = e
				}
				addPublisher(e, p)
				continue
			}
			if i == len(byIndex) {
				byIndex = append(byIndex, newMergedPublisher(false))
			}
			addPublisher(byIndex[i], p)
			i++
		}
	}
	out := byIndex
	if out == nil {
		out = []map[string]any{}
	}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[name])
	}
	for _, e := range out {
		delete(e, "count")
	}
	return out
}

// newMergedPublisher is an entry of the total: Pulsar's new
// PublisherStatsImpl, whose unset fields its JSON leaves out.
func newMergedPublisher(partial bool) map[string]any {
	return map[string]any{
		"msgRateIn": 0.0, "msgThroughputIn": 0.0, "averageMsgSize": 0.0, "chunkedMessageRate": 0.0,
		"producerId": 0, "supportsPartialProducer": partial, "count": 0,
	}
}

// addPublisher adds one partition's publisher p into the total's entry e
// (PublisherStatsImpl.add).
func addPublisher(e, p map[string]any) {
	n := e["count"].(int) + 1
	e["count"] = n
	for _, k := range []string{"msgRateIn", "msgThroughputIn"} {
		v, _ := p[k].(float64)
		e[k] = e[k].(float64) + v
	}
	avg, _ := p["averageMsgSize"].(float64)
	e["averageMsgSize"] = (e["averageMsgSize"].(float64)*float64(n-1) + avg) / float64(n)
	if r, ok := p["msgDropRate"].(float64); ok { // a non-persistent publisher's
		prev, _ := e["msgDropRate"].(float64)
		e["msgDropRate"] = prev + r
	}
}
