package brokerstub

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// Topic-list watchers (PIP-145), as Pulsar's TopicListService: a client
// sends WATCH_TOPIC_LIST for a namespace and a pattern, is answered
// WATCH_TOPIC_LIST_SUCCESS with the matching persistent topics and their
// hash, and then gets a WATCH_TOPIC_UPDATE for every matching topic created
// or deleted, each with the hash of the list after it. Our BaseCommand has
// no fields for these commands, so they are read from and written to the
// raw protobuf of BaseCommand fields 64 to 67 (upstream PulsarApi.proto).

// BaseCommand field numbers of the watcher commands (as their types).
const (
	fieldWatchTopicList        = protowire.Number(proto.BaseCommand_WATCH_TOPIC_LIST)
	fieldWatchTopicListSuccess = protowire.Number(proto.BaseCommand_WATCH_TOPIC_LIST_SUCCESS)
	fieldWatchTopicUpdate      = protowire.Number(proto.BaseCommand_WATCH_TOPIC_UPDATE)
	fieldWatchTopicListClose   = protowire.Number(proto.BaseCommand_WATCH_TOPIC_LIST_CLOSE)
)

// watchRequest is a CommandWatchTopicList or CommandWatchTopicListClose.
type watchRequest struct {
	requestID, watcherID   uint64
	namespace, pattern     string
	topicsHash             string
	hasPattern, hasHash    bool
	hasRequestID, hasWatch bool
}

// topicWatcher is one registered watcher: its matching topics (partition
// names) are what its last message told the client.
type topicWatcher struct {
	c        *conn
	id       uint64
	ns       string
	pattern  topicsPattern
	matching map[string]bool
}

// topicWatchers is the broker's registry of watchers. Its mutex also orders
// the messages: a watcher's success and every update are queued under it,
// after the change they report is visible in the topic registry.
type topicWatchers struct {
	mu     sync.Mutex
	byConn map[*conn]map[uint64]*topicWatcher
}

// isTopicListCommand reports whether t is a watcher command the broker
// answers.
func isTopicListCommand(t proto.BaseCommand_Type) bool {
	return t == proto.BaseCommand_WATCH_TOPIC_LIST || t == proto.BaseCommand_WATCH_TOPIC_LIST_CLOSE
}

// handleTopicListFrame runs a watcher command that the frame reader gave
// back as unknown to our BaseCommand; it reports false when the connection
// must close. The Interceptor sees it as any other inbound command.
func (c *conn) handleTopicListFrame(fe *wire.FrameError) bool {
	cmd := fe.Cmd
	if cmd == nil {
		return false
	}
	act := c.b.intercept(c.id, Inbound, cmd)
	switch {
	case act.CloseConn || !c.sleep(act.Delay):
		return false
	case act.Drop:
		return true
	}
	req, err := parseWatchRequest(cmd.ProtoReflect().GetUnknown(), protowire.Number(fe.Type))
	switch {
	case err != nil || !req.hasRequestID || !req.hasWatch:
		c.log.Warn("malformed topic-list watcher command", "type", fe.Type, "err", err)
		return false
	case act.Fail:
		c.sendError(req.requestID, failCode(act.FailWith), "failed by interceptor")
	case fe.Type == proto.BaseCommand_WATCH_TOPIC_LIST_CLOSE:
		c.b.watch.remove(c, req.watcherID)
		c.sendSuccess(req.requestID)
	default:
		c.b.watchTopicList(c, req)
	}
	return true
}

// watchTopicList registers a watcher and answers it, as
// TopicListService.handleWatchTopicList.
func (b *Broker) watchTopicList(c *conn, req watchRequest) {
	if len(req.pattern) > subscriptionPatternMaxLength {
		c.sendError(req.requestID, proto.ServerError_NotAllowedError, fmt.Sprintf(
			"Unable to create topic list watcher: Pattern longer than maximum: %d", subscriptionPatternMaxLength))
		return
	}
	pattern := req.pattern
	if !req.hasPattern {
		pattern = ".*"
	}
	p, err := compileTopicsPattern(pattern)
	if err != nil {
		c.sendError(req.requestID, proto.ServerError_MetadataError, "invalid topics pattern: "+err.Error())
		return
	}
	ns, err := parseNamespace(req.namespace)
	if err != nil {
		c.sendError(req.requestID, proto.ServerError_MetadataError, err.Error())
		return
	}
	b.watch.mu.Lock()
	defer b.watch.mu.Unlock()
	w := b.watch.byConn[c][req.watcherID]
	if w == nil {
		// A watcher with this id already on the connection is answered again
		// with its list, as Pulsar does for a retried request.
		w = &topicWatcher{c: c, id: req.watcherID, ns: ns, pattern: p, matching: map[string]bool{}}
		for _, t := range p.filter(b.listNamespaceTopics(ns, true, false)) {
			w.matching[t] = true
		}
		if b.watch.byConn == nil {
			b.watch.byConn = map[*conn]map[uint64]*topicWatcher{}
		}
		if b.watch.byConn[c] == nil {
			b.watch.byConn[c] = map[uint64]*topicWatcher{}
		}
		b.watch.byConn[c][w.id] = w
	}
	topics := w.topics()
	hash := topicsHash(topics)
	if req.hasHash && req.topicsHash == hash {
		topics = nil
	}
	var inner []byte
	inner = protowire.AppendTag(inner, 1, protowire.VarintType)
	inner = protowire.AppendVarint(inner, req.requestID)
	inner = protowire.AppendTag(inner, 2, protowire.VarintType)
	inner = protowire.AppendVarint(inner, w.id)
	inner = appendStrings(inner, 3, topics)
	inner = appendStrings(inner, 4, []string{hash})
	c.writeRawCommand(proto.BaseCommand_WATCH_TOPIC_LIST_SUCCESS, fieldWatchTopicListSuccess, inner)
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
func (ws *topicWatchers) remove(c *conn, id uint64) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	delete(ws.byConn[c], id)
	if len(ws.byConn[c]) == 0 {
		delete(ws.byConn, c)
	}
}

// removeConn drops every watcher of a closed connection.
func (ws *topicWatchers) removeConn(c *conn) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	delete(ws.byConn, c)
}

// topicListChanged tells every watcher about the topics created or deleted
// since its last message: one WATCH_TOPIC_UPDATE per topic, deletions
// first, each with the hash of the watcher's list after it, as Pulsar's
// TopicListWatcher does for each metadata notification. Call it, without
// b.mu held, after a topic is created or deleted (the admin API's delete
// calls it too); calling it when nothing changed sends nothing.
func (b *Broker) topicListChanged() {
	b.watch.mu.Lock()
	defer b.watch.mu.Unlock()
	lists := map[string][]string{}
	for _, ws := range b.watch.byConn {
		for _, w := range ws {
			names, ok := lists[w.ns]
			if !ok {
				names = b.listNamespaceTopics(w.ns, true, false)
				lists[w.ns] = names
			}
			w.update(w.pattern.filter(names))
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
	var inner []byte
	inner = protowire.AppendTag(inner, 1, protowire.VarintType)
	inner = protowire.AppendVarint(inner, w.id)
	inner = appendStrings(inner, 2, added)
	inner = appendStrings(inner, 3, deleted)
	inner = appendStrings(inner, 4, []string{topicsHash(w.topics())})
	w.c.writeRawCommand(proto.BaseCommand_WATCH_TOPIC_UPDATE, fieldWatchTopicUpdate, inner)
}

func appendStrings(b []byte, num protowire.Number, ss []string) []byte {
	for _, s := range ss {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	return b
}

// writeRawCommand queues a simple frame whose BaseCommand carries the
// command message inner in field num, which our BaseCommand has no field
// for.
func (c *conn) writeRawCommand(t proto.BaseCommand_Type, num protowire.Number, inner []byte) {
	var body []byte
	body = protowire.AppendTag(body, 1, protowire.VarintType)
	body = protowire.AppendVarint(body, uint64(t))
	body = protowire.AppendTag(body, num, protowire.BytesType)
	body = protowire.AppendBytes(body, inner)
	frame := binary.BigEndian.AppendUint32(nil, uint32(4+len(body)))
	frame = binary.BigEndian.AppendUint32(frame, uint32(len(body)))
	frame = append(frame, body...)
	// The Interceptor sees the command with its type; the message stays in
	// the unknown fields.
	cmd := &proto.BaseCommand{}
	if err := (gproto.UnmarshalOptions{AllowPartial: true}).Unmarshal(body, cmd); err != nil {
		c.log.Error("encode command", "type", t, "err", err)
		return
	}
	c.out.Push(outFrame{cmd: cmd, header: frame})
}

// errBadWatchCommand is returned for a watcher command whose protobuf
// cannot be read.
var errBadWatchCommand = errors.New("bad topic-list watcher command")

// parseWatchRequest reads the command message of BaseCommand field num from
// the BaseCommand's unknown fields.
func parseWatchRequest(unknown []byte, num protowire.Number) (watchRequest, error) {
	var req watchRequest
	var msg []byte
	found := false
	err := eachField(unknown, func(n protowire.Number, typ protowire.Type, v []byte, _ uint64) {
		if n == num && typ == protowire.BytesType {
			msg = append(msg, v...) // repeated occurrences merge
			found = true
		}
	})
	if err != nil || !found {
		return req, errBadWatchCommand
	}
	req.hasWatch = true
	err = eachField(msg, func(n protowire.Number, typ protowire.Type, v []byte, x uint64) {
		switch {
		case n == 1 && typ == protowire.VarintType:
			req.requestID, req.hasRequestID = x, true
		case n == 2 && typ == protowire.VarintType:
			req.watcherID = x
		case n == 3 && typ == protowire.BytesType && num == fieldWatchTopicList:
			req.namespace = string(v)
		case n == 4 && typ == protowire.BytesType && num == fieldWatchTopicList:
			req.pattern, req.hasPattern = string(v), true
		case n == 5 && typ == protowire.BytesType && num == fieldWatchTopicList:
			req.topicsHash, req.hasHash = string(v), true
		}
	})
	if err != nil {
		return req, errBadWatchCommand
	}
	return req, nil
}

// eachField calls fn for every field of the protobuf message b: bytes
// fields with their value, varints with theirs.
func eachField(b []byte, fn func(n protowire.Number, typ protowire.Type, v []byte, x uint64)) error {
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return protowire.ParseError(l)
		}
		b = b[l:]
		switch typ {
		case protowire.BytesType:
			v, l := protowire.ConsumeBytes(b)
			if l < 0 {
				return protowire.ParseError(l)
			}
			fn(n, typ, v, 0)
			b = b[l:]
		case protowire.VarintType:
			x, l := protowire.ConsumeVarint(b)
			if l < 0 {
				return protowire.ParseError(l)
			}
			fn(n, typ, nil, x)
			b = b[l:]
		default:
			l := protowire.ConsumeFieldValue(n, typ, b)
			if l < 0 {
				return protowire.ParseError(l)
			}
			b = b[l:]
		}
	}
	return nil
}
