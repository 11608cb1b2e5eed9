package protocol

import (
	"fmt"
	"slices"
	"sync"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/internal/proto"
)

// Topic-list watchers (PIP-145), as Pulsar's TopicListService: a client
// sends WATCH_TOPIC_LIST for a namespace and a pattern, is answered
// WATCH_TOPIC_LIST_SUCCESS with the matching persistent topics and their
// hash, and then gets a WATCH_TOPIC_UPDATE for every matching topic created
// or deleted, each with the hash of the list after it.

// topicWatcher is one registered watcher: its matching topics (partition
// names) are what its last message told the client.
type topicWatcher struct {
	c        *Conn
	id       uint64
	ns       string
	pattern  engine.TopicsPattern
	matching map[string]bool
}

// topicWatchers is the broker's registry of watchers. Its mutex also orders
// the messages: a watcher's success and every update are queued under it,
// after the change they report is visible in the topic registry.
type topicWatchers struct {
	Mu     sync.Mutex
	ByConn map[*Conn]map[uint64]*topicWatcher
}

// handleWatchTopicListClose drops a watcher and answers SUCCESS.
func (c *Conn) handleWatchTopicListClose(m *proto.CommandWatchTopicListClose) {
	c.b.Watch.remove(c, m.GetWatcherId())
	c.sendSuccess(m.GetRequestId())
}

// watchTopicList registers a watcher and answers it, as
// TopicListService.handleWatchTopicList.
func (b *Server) watchTopicList(c *Conn, m *proto.CommandWatchTopicList) {
	rid, id := m.GetRequestId(), m.GetWatcherId()
	if len(m.GetTopicsPattern()) > engine.SubscriptionPatternMaxLength {
		c.sendError(rid, proto.ServerError_NotAllowedError, fmt.Sprintf(
			"Unable to create topic list watcher: Pattern longer than maximum: %d", engine.SubscriptionPatternMaxLength))
		return
	}
	p, err := engine.CompileTopicsPattern(m.GetTopicsPattern())
	if err != nil {
		c.sendError(rid, proto.ServerError_MetadataError, "invalid topics pattern: "+err.Error())
		return
	}
	ns, err := engine.ParseNamespace(m.GetNamespace())
	if err != nil {
		c.sendError(rid, proto.ServerError_MetadataError, err.Error())
		return
	}
	if !c.authorizeNamespaceTopics(rid, ns, "Proxy Client is not authorized to watchTopicList") {
		return
	}
	b.Watch.Mu.Lock()
	defer b.Watch.Mu.Unlock()
	w := b.Watch.ByConn[c][id]
	if w == nil {
		// A watcher with this id already on the connection is answered again
		// with its list, as Pulsar does for a retried request.
		w = &topicWatcher{c: c, id: id, ns: ns, pattern: p, matching: map[string]bool{}}
		for _, t := range p.Filter(b.Eng.ListNamespaceTopics(ns, true, false)) {
			w.matching[t] = true
		}
		if b.Watch.ByConn == nil {
			b.Watch.ByConn = map[*Conn]map[uint64]*topicWatcher{}
		}
		if b.Watch.ByConn[c] == nil {
			b.Watch.ByConn[c] = map[uint64]*topicWatcher{}
		}
		b.Watch.ByConn[c][w.id] = w
	}
	topics := w.topics()
	hash := engine.TopicsHash(topics)
	if m.TopicsHash != nil && m.GetTopicsHash() == hash {
		topics = nil
	}
	c.write(&proto.BaseCommand{
		Type: proto.BaseCommand_WATCH_TOPIC_LIST_SUCCESS.Enum(),
		WatchTopicListSuccess: &proto.CommandWatchTopicListSuccess{
			RequestId: &rid, WatcherId: &id, Topic: topics, TopicsHash: &hash},
	})
}

// topics returns the watcher's matching topics, sorted.
func (w *topicWatcher) topics() []string {
	out := make([]string, 0, len(w.matching))
	for t := range w.matching {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// remove drops a watcher; an unknown id is not an error (Pulsar answers
// SUCCESS either way).
func (ws *topicWatchers) remove(c *Conn, id uint64) {
	ws.Mu.Lock()
	defer ws.Mu.Unlock()
	delete(ws.ByConn[c], id)
	if len(ws.ByConn[c]) == 0 {
		delete(ws.ByConn, c)
	}
}

// removeConn drops every watcher of a closed connection.
func (ws *topicWatchers) removeConn(c *Conn) {
	ws.Mu.Lock()
	defer ws.Mu.Unlock()
	delete(ws.ByConn, c)
}

// TopicListChanged tells every watcher about the topics created or deleted
// since its last message: one WATCH_TOPIC_UPDATE per topic, deletions
// first, each with the hash of the watcher's list after it, as Pulsar's
// TopicListWatcher does for each metadata notification. Call it, without
// b.mu held, after a topic is created or deleted: the wiring sets it as
// the engine's topicsChanged hook (broker.go), which the data path and the
// admin API call; calling it when nothing changed sends nothing.
func (b *Server) TopicListChanged() {
	b.Watch.Mu.Lock()
	defer b.Watch.Mu.Unlock()
	lists := map[string][]string{}
	for _, ws := range b.Watch.ByConn {
		for _, w := range ws {
			names, ok := lists[w.ns]
			if !ok {
				names = b.Eng.ListNamespaceTopics(w.ns, true, false)
				lists[w.ns] = names
			}
			w.update(w.pattern.Filter(names))
		}
	}
}

// update moves the watcher to the matching list now, sending an update for
// each difference.
func (w *topicWatcher) update(now []string) {
	current := map[string]bool{}
	for _, t := range now {
		current[t] = true
	}
	for _, t := range w.topics() {
		if !current[t] {
			delete(w.matching, t)
			w.sendUpdate(nil, []string{t})
		}
	}
	for _, t := range now {
		if !w.matching[t] {
			w.matching[t] = true
			w.sendUpdate([]string{t}, nil)
		}
	}
}

func (w *topicWatcher) sendUpdate(added, deleted []string) {
	id, hash := w.id, engine.TopicsHash(w.topics())
	w.c.write(&proto.BaseCommand{
		Type: proto.BaseCommand_WATCH_TOPIC_UPDATE.Enum(),
		WatchTopicUpdate: &proto.CommandWatchTopicUpdate{
			WatcherId: &id, NewTopics: added, DeletedTopics: deleted, TopicsHash: &hash},
	})
}
