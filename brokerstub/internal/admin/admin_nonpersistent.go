package admin

import (
	"net/http"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// The admin API's answers that differ for non-persistent topics
// (nonpersistent.go). The rest — creating and deleting topics and
// partitioned topics, listing partitioned topics, a topic's stats (with
// the non-persistent fields, nonpersistent_stats.go) — is served by the
// handlers every domain shares.

// NpTopicPath is the path of a non-persistent topic's admin resources.
const NpTopicPath = "/admin/v2/non-persistent/{tenant}/{ns}/{topic}"

// registerNonPersistent adds the routes; they go before the routes with a
// {domain} segment.
func (a *routeTable) registerNonPersistent() {
	a.Add(Get, "/admin/v2/non-persistent/{tenant}/{ns}", nsGetTopics, npListTopics)
	a.Add(Get, NpTopicPath+"/stats", topicGetStats, inNonPersistent(npTopicStats))
	a.Add(Get, NpTopicPath+"/partitioned-stats", topicGetStats, inNonPersistent(npPartitionedStats))
	a.Add(Get, NpTopicPath+"/lastMessageId", TopicPeekMessages, inNonPersistent(npRefuse("GetLastMessageId on a non-persistent topic is not allowed")))
	a.Add(Post, NpTopicPath+"/terminate", topicTerminate, inNonPersistent(npRefuse("Operation not allowed on non-persistent topic")))
	a.Add(Post, NpTopicPath+"/subscription/{sub}/skip/{n}", topicSkip, inNonPersistent(npRefuse("Skip messages on a non-persistent topic is not allowed")))
	a.Add(Put, NpTopicPath+"/subscription/{sub}", topicSubscribe, inNonPersistent(npCreateSubscription))
}

// npCreateSubscription refuses to create a subscription of a
// non-persistent topic, which exists only with a consumer, as Pulsar does
// (400, before looking at the topic; the missing space is Pulsar's).
func npCreateSubscription(rq *adminReq) (any, error) {
	if _, err := rq.topic(); err != nil {
		return nil, err
	}
	return nil, engine.RestErr(http.StatusBadRequest, "Create subscription on non-persistent topiccan only be done through client")
}

// inNonPersistent serves a path whose domain segment is literal.
func inNonPersistent(h adminHandler) adminHandler {
	return func(rq *adminReq) (any, error) {
		rq.p["domain"] = engine.NonPersistentDomain
		return h(rq)
	}
}

// npListTopics lists the namespace's non-persistent topics as Pulsar does:
// those loaded in the broker (a non-persistent topic exists only while it
// is), partitions by their names; a partitioned topic's partitions that
// nobody used are not listed.
func npListTopics(rq *adminReq) (any, error) {
	rq.p["domain"] = engine.NonPersistentDomain
	ns, err := rq.namespace()
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, t := range rq.b.Eng.LoadedTopics() {
		if n := t.TopicName(); t.IsNonPersistent() && n.Namespace == ns && !strings.Contains(n.Full, "/__change_events") {
			out = append(out, n.Full)
		}
	}
	return sortedNames(out), nil
}

// npTopicStats is getTopicStats for a topic that is loaded: a partition
// nobody used has no stats (404), and asking does not make it a topic.
func npTopicStats(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	if rq.b.Eng.LoadedTopic(name.Full) == nil && rq.b.Eng.PartitionCountOf(name) == 0 {
		return nil, topicNotFound(name)
	}
	return getTopicStats(rq)
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
	n := rq.b.Eng.PartitionCountOf(name)
	if n == 0 {
		return nil, engine.RestErr(http.StatusNotFound, "Partitioned Topic not found: %s", name.Full)
	}
	total := &engine.PartitionedTopicStats{Metadata: engine.PartitionedMetadata{Partitions: n}, Partitions: map[string]*engine.TopicStats{}}
	parts := map[string]*engine.TopicStats{}
	var pubs [][]*engine.PublisherStats
	loaded := false
	for _, p := range rq.b.partitionsOf(name) {
		t := rq.b.Eng.LoadedTopic(p.Full)
		if t == nil {
			continue
		}
		var st *engine.TopicStats
		if err := t.Call(func() { st = t.Stats(rq.statsOptions()) }); err != nil {
			continue // unloaded meanwhile: no stats, as a partition never loaded
		}
		parts[p.Full] = st
		if loaded {
			total.TopicStats.Add(st)
		} else {
			total.TopicStats = st.Clone()
			loaded = true
		}
		pubs = append(pubs, st.Publishers)
	}
	if !loaded {
		total.TopicStats = engine.TopicStats{Publishers: []*engine.PublisherStats{}, Subscriptions: map[string]*engine.SubscriptionStats{},
			Replication: map[string]struct{}{}, MsgDropRate: new(0.0)}
	}
	total.Publishers = MergePublishers(pubs) // admin_stats_publishers.go
	if rq.q.Get("perPartition") != "false" {
		total.Partitions = parts
	}
	return total, nil
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
		return nil, engine.RestErr(http.StatusMethodNotAllowed, "%s", reason)
	}
}
