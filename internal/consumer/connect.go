package consumer

import (
	"context"
	"errors"
	"fmt"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/frameq"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
	"github.com/pulsargo/sdk/messageid"
)

type eventKind int

const (
	evMessage eventKind = iota
	evClosed
	evConnClosed
	evActive
	evEndOfTopic
)

// event is what the connection's reader goroutine hands to the loop.
type event struct {
	gen    uint64
	kind   eventKind
	msg    *proto.CommandMessage
	frame  *wire.Frame
	err    error
	active bool
	chunk  int64 // chunk payload bytes counted by inflight
}

// handler is one registration of the engine on a connection; it only
// queues, so the connection's reader never blocks.
type handler struct {
	q        *frameq.Queue[event]
	gen      uint64
	inflight *inflight
	kick     func() // starts the engine's loop if it does not run
}

// push queues ev and makes sure the loop runs to take it.
func (h *handler) push(ev event) bool {
	if !h.q.Push(ev) {
		return false
	}
	h.kick()
	return true
}

// Message queues a delivered message; for a chunk it may first wait,
// boundedly, for the loop to catch up (see inflight).
func (h *handler) Message(m *proto.CommandMessage, f *wire.Frame, err error) {
	n := h.inflight.admit(f)
	if !h.push(event{gen: h.gen, kind: evMessage, msg: m, frame: f, err: err, chunk: n}) {
		h.inflight.done(n)
	}
}

// ActiveChanged queues a Failover activity change.
func (h *handler) ActiveChanged(active bool) {
	h.push(event{gen: h.gen, kind: evActive, active: active})
}

// ReachedEndOfTopic queues the end of a terminated topic.
func (h *handler) ReachedEndOfTopic() { h.push(event{gen: h.gen, kind: evEndOfTopic}) }

// Closed queues the broker's closing of the consumer.
func (h *handler) Closed() { h.push(event{gen: h.gen, kind: evClosed}) }

// ConnectionClosed queues the loss of the connection.
func (h *handler) ConnectionClosed() { h.push(event{gen: h.gen, kind: evConnClosed}) }

// subscribe connects (on via when it is still open: a connection whose
// broker has just served the topic, which spares the lookup), registers a
// handler of generation gen and sends SUBSCRIBE. It runs outside the loop.
func (e *Engine[T]) subscribe(ctx context.Context, gen uint64, start messageid.MessageID, via *conn.Conn) (*conn.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, e.o.OperationTimeout)
	defer cancel()
	cn := via
	if cn == nil || cn.Err() != nil {
		var err error
		if cn, err = e.o.Connect(ctx); err != nil {
			return nil, err
		}
	}
	if !cn.RegisterConsumer(e.o.ConsumerID, &handler{q: e.events, gen: gen, inflight: e.inflight, kick: e.kick}) {
		return nil, fmt.Errorf("subscribe %s: %w", e.o.Topic, conn.ErrClosed)
	}
	rid := cn.NewRequestID()
	if _, err := cn.Request(ctx, rid, e.subscribeCmd(rid, start)); err != nil {
		cn.UnregisterConsumer(e.o.ConsumerID)
		return nil, fmt.Errorf("subscribe %s: %w", e.o.Topic, err)
	}
	return cn, nil
}

func (e *Engine[T]) subscribeCmd(rid uint64, start messageid.MessageID) *proto.BaseCommand {
	id := e.o.ConsumerID
	s := &proto.CommandSubscribe{
		Topic:           gproto.String(e.o.Topic),
		Subscription:    gproto.String(e.o.Subscription),
		SubType:         e.o.SubType.Enum(),
		ConsumerId:      &id,
		RequestId:       &rid,
		Durable:         gproto.Bool(!e.o.NonDurable),
		InitialPosition: e.o.InitialPosition.Enum(),
		ReadCompacted:   gproto.Bool(e.o.ReadCompacted),
		KeySharedMeta:   e.o.KeySharedMeta,
		Schema:          e.o.Schema,

		ReplicateSubscriptionState: gproto.Bool(e.o.ReplicateSubscriptionState),
	}
	if e.o.NoTopicCreation {
		s.ForceTopicCreation = gproto.Bool(false)
	}
	if e.o.Name != "" {
		s.ConsumerName = gproto.String(e.o.Name)
	}
	s.Metadata = keyValues(e.o.Properties)
	s.SubscriptionProperties = keyValues(e.o.SubscriptionProperties)
	if start != nil && e.o.NonDurable {
		s.StartMessageId = entryData(messageid.FirstChunk(start), nil)
	}
	return &proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: s}
}

func keyValues(m map[string]string) []*proto.KeyValue {
	out := make([]*proto.KeyValue, 0, len(m))
	for k, v := range m {
		out = append(out, &proto.KeyValue{Key: gproto.String(k), Value: gproto.String(v)})
	}
	return out
}

// entryData is the wire form of an entry position (or of Earliest and
// Latest) with an optional ack set.
func entryData(id messageid.ID, ackSet []int64) *proto.MessageIdData {
	l, en := uint64(id.LedgerID()), uint64(id.EntryID())
	return &proto.MessageIdData{LedgerId: &l, EntryId: &en, AckSet: ackSet}
}

// subscribed runs on the loop when subscription gen succeeded.
func (e *Engine[T]) subscribed(gen uint64, cn *conn.Conn) {
	if gen != e.gen || e.state == stateClosed {
		// Superseded by a seek, a newer reconnect or Close.
		go e.closeOnBroker(context.Background(), cn)
		return
	}
	e.cn = cn
	e.state = stateReady
	e.bo.Reset()
	e.flushAcks()
	e.permits = 0
	e.window.credit = 0
	e.brokerPerm = 0
	e.sendFlow(e.window.size)
	e.zeroFlow()
	for _, w := range e.waiters {
		close(w)
	}
	e.waiters = nil
	e.armExpiry()
}

// disconnected runs on the loop when the broker closed the consumer or the
// connection went away: what was not handed out is dropped (the broker
// redelivers it) and a new subscription is made after a backoff.
func (e *Engine[T]) disconnected() {
	e.cn = nil
	e.state = stateConnecting
	e.gen++
	e.breakStreams(errors.New("connection to the broker lost"), false)
	e.brokerPerm = 0
	e.clearQueue()
	for k, t := range e.tracked {
		if !t.handed {
			delete(e.tracked, k) // dropped from the queue: the broker redelivers it
		}
	}
	e.permits = 0
	// The broker redelivers every unacknowledged message to the new
	// subscription: pending redelivery requests are moot.
	e.nacks = nil
	e.timeouts = nil
	e.forgetSeen()
	switch {
	case !e.o.NonDurable:
	case e.lastOut != nil:
		// A reader resumes after the last message it handed out.
		e.filter.set(e.lastOut, false)
	case e.origin != nil && e.filter.minTime == 0:
		e.filter.set(e.origin, e.originIncl)
	}
	e.tries = 0
	e.reconnect()
}

// reconnect subscribes again after the next backoff delay, unless
// MaxReconnect attempts failed since the disconnection.
func (e *Engine[T]) reconnect() {
	if max := e.o.MaxReconnect; max != nil && e.tries >= *max {
		e.log.Warn("consumer gave up reconnecting", "attempts", e.tries)
		e.o.Metrics.Add(api.MetricConsumersReconnectMaxRetry, 1)
		return
	}
	e.tries++
	e.startConnect(e.bo.Next(), nil)
}

// startConnect subscribes again after delay, for the current generation:
// on via if it is not nil and still open (see subscribe); if that fails,
// the retries look the topic up again.
func (e *Engine[T]) startConnect(delay time.Duration, via *conn.Conn) {
	gen := e.gen
	start := e.resumeStart()
	attempt := func() {
		cn, err := e.subscribe(e.ctx, gen, start, via)
		e.do(func() {
			if err == nil {
				e.subscribed(gen, cn)
				return
			}
			if gen != e.gen || e.state == stateClosed {
				return
			}
			e.log.Info("subscribe failed; retrying", "err", err)
			e.o.Metrics.Add(api.MetricConsumersReconnectFailure, 1)
			e.reconnect()
		})
	}
	if delay <= 0 {
		go attempt()
		return
	}
	e.o.Clock.AfterFunc(delay, attempt)
}

// resumeStart is the start id of a non-durable subscription made now: the
// start or seek point until a message was handed out, then the last one
// handed out, moved back to the first chunk of any incomplete chunked
// message (so that it is delivered again whole). The filter keeps what was
// handed out from being delivered twice. It is nil (the broker starts at
// InitialPosition, as for the official client) for a durable subscription
// and for a non-durable one with no start, seek or message handed out.
func (e *Engine[T]) resumeStart() messageid.MessageID {
	if !e.o.NonDurable {
		return nil
	}
	var start messageid.MessageID
	switch {
	case e.lastOut != nil:
		start = messageid.LastChunk(e.lastOut).Entry()
	case e.filter.point != nil:
		start = e.filter.point
	case e.origin != nil:
		start = e.origin
	default:
		return nil
	}
	if isEarliest(start) || isLatest(start) {
		return start
	}
	first, moved := messageid.FirstChunk(start).Entry(), false
	for _, c := range e.firstChunk {
		if posOf(c).less(posOf(first)) {
			first, moved = c.Entry(), true
		}
	}
	if moved {
		return first
	}
	return start
}

func isEarliest(id messageid.MessageID) bool { return id.LedgerID() < 0 || id.EntryID() < 0 }

func isLatest(id messageid.MessageID) bool {
	return id.LedgerID() == messageid.Latest().LedgerID() && id.EntryID() == messageid.Latest().EntryID()
}

// sendFlow grants n permits to the broker.
func (e *Engine[T]) sendFlow(n int) {
	if e.cn == nil || n <= 0 {
		return
	}
	e.brokerPerm += n
	id, permits := e.o.ConsumerID, uint32(n)
	_ = e.cn.Send(&proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(),
		Flow: &proto.CommandFlow{ConsumerId: &id, MessagePermits: &permits}})
}

// closeOnBroker closes the consumer id on cn and stops routing to it. It
// runs outside the loop; errors are logged only.
func (e *Engine[T]) closeOnBroker(ctx context.Context, cn *conn.Conn) {
	defer cn.UnregisterConsumer(e.o.ConsumerID)
	if cn.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, e.o.OperationTimeout)
	defer cancel()
	id, rid := e.o.ConsumerID, cn.NewRequestID()
	_, err := cn.Request(ctx, rid, &proto.BaseCommand{Type: proto.BaseCommand_CLOSE_CONSUMER.Enum(),
		CloseConsumer: &proto.CommandCloseConsumer{ConsumerId: &id, RequestId: &rid}})
	if err != nil {
		e.log.Debug("close consumer", "err", err)
	}
}

// request sends a request on the current connection, outside the loop.
func (e *Engine[T]) request(ctx context.Context, build func(rid uint64) *proto.BaseCommand) (*proto.BaseCommand, error) {
	var cn *conn.Conn
	if err := e.call(func() { cn = e.cn }); err != nil {
		return nil, err
	}
	if cn == nil {
		return nil, ErrNotConnected
	}
	ctx, cancel := context.WithTimeout(ctx, e.o.OperationTimeout)
	defer cancel()
	rid := cn.NewRequestID()
	return cn.Request(ctx, rid, build(rid))
}
