package brokerstub

import (
	"net/http"
	"strings"
)

// The admin API's answers that differ for non-persistent topics
// (nonpersistent.go). The rest — creating and deleting topics and
// partitioned topics, listing partitioned topics, a topic's stats (with
// the non-persistent fields, nonpersistent_stats.go) — is served by the
// handlers every domain shares.

// npTopicPath is the path of a non-persistent topic's admin resources.
const npTopicPath = "/admin/v2/non-persistent/{tenant}/{ns}/{topic}"

// registerNonPersistent adds the routes; they go before the routes with a
// {domain} segment.
func (a *adminServer) registerNonPersistent() {
	a.add(get, "/admin/v2/non-persistent/{tenant}/{ns}", nsGetTopics, npListTopics)
	a.add(get, npTopicPath+"/stats", topicGetStats, inNonPersistent(npTopicStats))
	a.add(get, npTopicPath+"/partitioned-stats", topicGetStats, inNonPersistent(npPartitionedStats))
	a.add(get, npTopicPath+"/lastMessageId", topicPeekMessages, inNonPersistent(npRefuse("GetLastMessageId on a non-persistent topic is not allowed")))
	a.add(post, npTopicPath+"/terminate", topicTerminate, inNonPersistent(npRefuse("Operation not allowed on non-persistent topic")))
	a.add(post, npTopicPath+"/subscription/{sub}/skip/{n}", topicSkip, inNonPersistent(npRefuse("Skip messages on a non-persistent topic is not allowed")))
	a.add(put, npTopicPath+"/subscription/{sub}", topicSubscribe, inNonPersistent(npCreateSubscription))
}

// npCreateSubscription refuses to create a subscription of a
// non-persistent topic, which exists only with a consumer, as Pulsar does
// (400, before looking at the topic; the missing space is Pulsar's).
func npCreateSubscription(rq *adminReq) (any, error) {
	if _, err := rq.topic(); err != nil {
		return nil, err
	}
	return nil, restErr(http.StatusBadRequest, "Create subscription on non-persistent topiccan only be done through client")
}

// inNonPersistent serves a path whose domain segment is literal.
func inNonPersistent(h adminHandler) adminHandler {
	return func(rq *adminReq) (any, error) {
		rq.p["domain"] = nonPersistentDomain
		return h(rq)
	}
}

// npListTopics lists the namespace's non-persistent topics as Pulsar does:
// those loaded in the broker (a non-persistent topic exists only while it
// is), partitions by their names; a partitioned topic's partitions that
// nobody used are not listed.
func npListTopics(rq *adminReq) (any, error) {
	rq.p["domain"] = nonPersistentDomain
	ns, err := rq.namespace()
	if err != nil {
		return nil, err
	}
	out := []string{}
	rq.b.mu.Lock()
	for full, t := range rq.b.topics {
		if t.np != nil && t.name.Namespace == ns && !strings.Contains(full, "/__change_events") {
			out = append(out, full)
		}
	}
	rq.b.mu.Unlock()
	return sortedNames(out), nil
}

// npTopicStats is topicStats for a topic that is loaded: a partition
// nobody used has no stats (404), and asking does not make it a topic.
func npTopicStats(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	rq.b.mu.Lock()
	_, loaded := rq.b.topics[name.Full]
	rq.b.mu.Unlock()
	if !loaded && rq.b.partitionCountOf(name) == 0 {
		return nil, topicNotFound(name)
	}
	return topicStats(rq)
}

// npPartitionedStats is Pulsar's NonPersistentPartitionedTopicStats: the
// stats of the loaded partitions added up (Pulsar skips a partition that
// is not loaded: it has no stats), each under "partitions" unless
// perPartition=false.
func npPartitionedStats(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	n := rq.b.partitionCountOf(name)
	if n == 0 {
		return nil, restErr(http.StatusNotFound, "Partitioned Topic not found: %s", name.Full)
	}
	total := map[string]any{}
	parts := map[string]any{}
	var pubs [][]map[string]any
	for _, p := range rq.b.partitionsOf(name) {
		rq.b.mu.Lock()
		t := rq.b.topics[p.Full]
		rq.b.mu.Unlock()
		if t == nil {
			continue
		}
		var st map[string]any
		if err := t.call(func() { st = t.stats(rq.statsOptions()) }); err != nil {
			continue // unloaded meanwhile: no stats, as a partition never loaded
		}
		parts[p.Full] = st
		addStats(total, st)
		pubs = append(pubs, st["publishers"].([]map[string]any))
	}
	total["metadata"] = map[string]any{"partitions": n, "deleted": false}
	if _, ok := total["publishers"]; !ok {
		total["publishers"], total["subscriptions"], total["replication"] = []map[string]any{}, map[string]any{}, map[string]any{}
		total["msgDropRate"] = 0.0
	}
	total["publishers"] = mergePublishers(pubs) // admin_stats_publishers.go
	total["partitions"] = map[string]any{}
	if rq.q.Get("perPartition") != "false" {
		total["partitions"] = parts
	}
	return total, nil
}

// addStats adds the stats src into dst as Pulsar's stats add() methods do:
// counters and rates sum, publishers are listed together, subscriptions
// and their consumers merge by name, the latest publish time and the
// earliest creation time win, other values keep the first partition's.
func addStats(dst, src map[string]any) {
	for k, v := range src {
		cur, ok := dst[k]
		if !ok {
			dst[k] = cloneStat(v)
			continue
		}
		switch x := v.(type) {
		case int64:
			switch k {
			case "lastPublishTimestamp":
				dst[k] = max(cur.(int64), x)
			case "topicCreationTimeStamp":
				dst[k] = min(cur.(int64), x)
			default:
				dst[k] = cur.(int64) + x
			}
		case int:
			dst[k] = cur.(int) + x
		case float64:
			dst[k] = cur.(float64) + x
		case []map[string]any:
			dst[k] = append(cur.([]map[string]any), x...)
		case map[string]any:
			d := cur.(map[string]any)
			for name, sv := range x {
				if sub, ok := sv.(map[string]any); ok {
					if prev, ok := d[name].(map[string]any); ok {
						addStats(prev, sub)
						continue
					}
				}
				d[name] = cloneStat(sv)
			}
		}
	}
}

// cloneStat copies the maps and lists of a stats value, so that adding to
// a total never changes a partition's own stats.
func cloneStat(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, sv := range x {
			out[k] = cloneStat(sv)
		}
		return out
	case []map[string]any:
		out := make([]map[string]any, 0, len(x))
		for _, m := range x {
			out = append(out, cloneStat(m).(map[string]any))
		}
		return out
	}
	return v
}

// npRefuse refuses an operation that needs a persistent topic as Pulsar's
// admin API does (405 with its reason), after checking that the topic
// exists (404).
func npRefuse(reason string) adminHandler {
	return func(rq *adminReq) (any, error) {
		name, err := rq.topic()
		if err != nil {
			return nil, err
		}
		if _, err := rq.loaded(name); err != nil {
			return nil, err
		}
		return nil, restErr(http.StatusMethodNotAllowed, "%s", reason)
	}
}
