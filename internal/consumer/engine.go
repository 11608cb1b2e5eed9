package consumer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/backoff"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/frameq"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

// Errors of the engine; they are returned wrapped, test with errors.Is.
// Each wraps (or is) the internal/api sentinel that package pulsar exports,
// so they reach the user as they are.
var (
	// ErrClosed: the engine was closed. It is api.ErrConsumerClosed.
	ErrClosed = api.ErrConsumerClosed
	// ErrNotConnected: the operation needs the broker and the engine is
	// reconnecting; it is retriable (it wraps api.ErrConnectionClosed).
	ErrNotConnected = fmt.Errorf("%w: consumer not connected", api.ErrConnectionClosed)
	// ErrUnknownID: an id cannot be acknowledged because it cannot name a
	// message (a batch index past its batch's size). An id the engine
	// merely does not track is not an error (see Engine.Ack). It wraps
	// api.ErrInvalidOptions.
	ErrUnknownID = fmt.Errorf("%w: message id unknown to this consumer", api.ErrInvalidOptions)
)

type state int

const (
	stateConnecting state = iota
	stateReady
	stateSeeking
	stateClosed
)

// Engine consumes one topic or partition. Its methods are safe for
// concurrent use.
type Engine[T any] struct {
	o      Options[T]
	log    *slog.Logger
	ops    chan func()
	events *frameq.Queue[event]
	// inflight bounds chunk bytes queued by the connection's reader.
	inflight *inflight
	quit     chan struct{} // closed by Close to stop the loop
	done     chan struct{} // closed when the loop has stopped for good
	doneOnce sync.Once
	// running: a loop goroutine runs (kick). The loop runs only while the
	// engine has work, so an idle engine costs no goroutine: a consumer
	// of a thousand partitions holds none at rest.
	running atomic.Bool
	ctx     context.Context
	cancel  context.CancelFunc

	closeOnce sync.Once
	started   bool // Start succeeded: counted as an active partition (metrics.go)

	// The consumer memory budget (memory.go, hold.go).
	memWake chan struct{} // signalled when Options.Memory has room again
	parkedN atomic.Int32  // len(parked), for Wake
	parked  []parkedEntry // owned by the loop: entries not parsed yet, in order

	loan lender[T] // what is lent to Options.Outbox (lend.go)

	// Owned by the loop goroutine.
	gen        uint64 // registration generation; events of others are stale
	cn         *conn.Conn
	state      state
	queue      []*Message
	head       T
	headSet    bool
	asm        *chunk.Assembler
	bufs       reassembly              // where asm's buffers come from (assembly.go)
	firstChunk map[string]messageid.ID // uuid -> chunk 0 of incomplete messages
	permits    int                     // consumed, not yet granted back
	window     window                  // the receiver queue's size now (queue.go)
	bo         backoff.Policy
	tries      uint                       // failed subscribe attempts since the last disconnection
	brokerMeta *proto.BrokerEntryMetadata // of the entry being parsed
	acks       ackGroup
	tracked    map[position]*tracked
	epoch      uint64 // seeks so far: a redelivery joins a tracked record of the same epoch only
	deferred   deferredAcks
	dropped    uuidSet // chunk uuids given up on under ChunkAck
	renacked   uuidSet // chunk uuids given up on under ChunkNack
	nacks      []nackItem
	streams    map[string]*streamState // open streamed messages by uuid (streaming.go)
	streamHeld int                     // chunks streams hold, their permits withheld
	streamList []*streamState          // streams open or holding chunks, oldest (read first) first
	brokerPerm int                     // permits the broker holds: granted, not yet used
	timeouts   []timeoutItem
	filter     filter
	lastOut    messageid.MessageID // last message handed out since the last seek
	recent     recentIDs           // messages handed out, for Knows
	origin     messageid.MessageID // start or seek point (nil: none)
	originIncl bool
	byTime     bool            // the last seek was by time
	seen       position        // the last entry received since the last seek or reconnect
	seenAny    bool            // whether seen is set
	progress   []chan struct{} // closed when an entry is received, for waitSeen
	endOfTopic bool
	waiters    []chan struct{} // closed when the next subscription is ready

	ackAlarm, nackAlarm, timeoutAlarm, expiryAlarm alarm
}

// New returns an engine; Start subscribes and starts it.
func New[T any](opts Options[T]) *Engine[T] {
	o := opts.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	e := &Engine[T]{
		o:        o,
		log:      o.Logger.With("topic", o.Topic, "subscription", o.Subscription, "consumer", o.ConsumerID),
		ops:      make(chan func(), 64),
		events:   frameq.New[event](),
		inflight: newInflight(),
		memWake:  make(chan struct{}, 1),
		loan:     lender[T]{wake: make(chan struct{}, 1)},
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
		ctx:      ctx, cancel: cancel,
		firstChunk: map[string]messageid.ID{},
		streams:    map[string]*streamState{},
		bo:         newBackoff(o),
		tracked:    map[position]*tracked{},
		deferred:   deferredAcks{m: map[position]position{}},
	}
	e.asm = chunk.NewAssembler(e.bufs.options(o.Chunks))
	e.acks.reset()
	e.window = newWindow(o)
	e.recent.max = o.RecentIDs
	if o.StartID != nil {
		e.filter.set(o.StartID, o.StartInclusive)
		e.origin, e.originIncl = o.StartID, o.StartInclusive
	}
	return e
}

// Start subscribes (once, returning the broker's answer) and starts the
// loop. After a failed Start the engine is closed.
func (e *Engine[T]) Start(ctx context.Context) error {
	start := e.resumeStart()
	cn, err := e.subscribe(ctx, 0, start, nil)
	if err != nil {
		e.cancel()
		e.doneOnce.Do(func() { close(e.done) })
		return err
	}
	e.metricStarted()
	return e.call(func() { e.subscribed(0, cn) })
}

// kick makes sure a loop goroutine runs: it starts one unless one runs.
// Everything that gives the loop work calls it after queuing the work (do,
// the connection's handler); alarms and Wake go through do.
func (e *Engine[T]) kick() {
	if e.running.CompareAndSwap(false, true) {
		go e.run()
	}
}

// signalled reports whether work was queued for the loop from outside.
// It reads only channels, so a goroutine that is no longer the loop may
// call it.
func (e *Engine[T]) signalled() bool {
	if len(e.ops) > 0 || len(e.events.Ready()) > 0 || len(e.memWake) > 0 || len(e.loan.wake) > 0 {
		return true
	}
	select {
	case <-e.quit:
		return true
	default:
		return false
	}
}

// run is the loop: it owns the engine's state while it runs, and returns
// when it has nothing to do (no message to hand out, none parked, nothing
// queued) until kick starts it again. One loop runs at a time: it gives
// up running before its last look at the queues, and a kick after that
// look starts the next. With an Outbox, a message lent is not something
// to hand out: the loop may stop while receivers have the whole queue to
// take from, and the first take wakes it (lend.go).
func (e *Engine[T]) run() {
	for {
		e.settle()
		lends := e.lends()
		if lends {
			e.lend()
		} else if e.loan.lentN > 0 {
			e.recall() // the outbox was closed: Out from now on
		}
		pending := !lends && len(e.queue) > 0 && e.state != stateClosed
		if !pending && len(e.parked) == 0 && !e.signalled() {
			e.running.Store(false)
			if !e.signalled() || !e.running.CompareAndSwap(false, true) {
				return
			}
		}
		var out chan<- T
		if pending {
			if !e.headSet {
				e.head, e.headSet = e.o.Wrap(e.queue[0]), true
			}
			out = e.o.Out
		}
		select {
		case f := <-e.ops:
			e.settle()
			f()
		case <-e.events.Ready():
			e.settle()
			for _, ev := range e.events.Take() {
				e.handle(ev)
				e.offer() // before the next event starts another message (assembly.go)
			}
		case out <- e.head:
			e.handedOut()
		case <-e.memWake:
			e.settle()
			e.memoryFreed()
		case <-e.loan.wake:
			// settled at the top of the loop
		case <-e.quit:
			e.stopAlarms()
			e.events.Close()
			e.doneOnce.Do(func() { close(e.done) }) // running stays set: no loop starts again
			return
		}
	}
}

// setParked records that n entries are parked (hold.go), counting the
// engine in Options.Parked while n > 0. The count is raised before unpark
// reads Options.Receivers, as parkedN is (see park). Loop goroutine.
func (e *Engine[T]) setParked(n int) {
	was := e.parkedN.Swap(int32(n))
	if e.o.Parked == nil {
		return
	}
	switch {
	case was == 0 && n > 0:
		e.o.Parked.Add(1)
	case was > 0 && n == 0:
		e.o.Parked.Add(-1)
	}
}

// do queues f on the loop; it reports false once the loop has stopped.
func (e *Engine[T]) do(f func()) bool {
	select {
	case <-e.done:
		return false
	default:
	}
	select {
	case e.ops <- f:
		e.kick()
		return true
	case <-e.done:
		return false
	}
}

// call runs f on the loop and waits for it.
func (e *Engine[T]) call(f func()) error {
	ran := make(chan struct{})
	if !e.do(func() { f(); close(ran) }) {
		return ErrClosed
	}
	select {
	case <-ran:
		return nil
	case <-e.done:
		select {
		case <-ran:
			return nil
		default:
			return ErrClosed
		}
	}
}

// handle processes one event from the connection.
func (e *Engine[T]) handle(ev event) {
	defer e.inflight.done(ev.chunk)
	if ev.gen != e.gen || e.state == stateClosed {
		return // from an earlier registration (before a seek or reconnect)
	}
	switch ev.kind {
	case evMessage:
		e.window.credit = max(0, e.window.credit-1)
		e.brokerPerm = max(0, e.brokerPerm-entryPermits(ev.frame))
		e.onMessage(ev)
		e.window.received(len(e.queue), e.permits)
		mid := ev.msg.GetMessageId()
		e.sawEntry(position{int64(mid.GetLedgerId()), int64(mid.GetEntryId())})
	case evClosed, evConnClosed:
		e.log.Debug("disconnected", "by_broker", ev.kind == evClosed)
		e.disconnected()
	case evActive:
		e.log.Debug("active consumer changed", "active", ev.active)
		if e.o.ActiveChanged != nil {
			e.o.ActiveChanged(ev.active)
		}
	case evEndOfTopic:
		e.endOfTopic = true
	}
}

// handedOut runs when the head of the queue was taken by the application.
func (e *Engine[T]) handedOut() {
	m := e.queue[0]
	e.metricPrefetched(m, -1)
	e.queue[0] = nil
	e.queue = e.queue[1:]
	var zero T
	e.head, e.headSet = zero, false
	e.dequeued(m)
	e.bufs.left(m)
	switch st := m.stream; {
	case st == nil:
		e.lastOut = m.ID
	case st.done:
		st.handed = true
		e.lastOut, _ = st.s.ID()
	default:
		st.handed = true // lastOut once its last chunk came
	}
	e.recent.add(m.ID)
	e.startAckTimeout(m.ID)
	e.unpark()
	if m.stream != nil {
		// Its chunk 0's permit comes back once that chunk is read.
		e.grant(e.window.handedOut())
		return
	}
	e.grant(1 + e.window.handedOut())
}

// clearQueue drops the messages not handed out yet.
func (e *Engine[T]) clearQueue() {
	e.recall()
	for _, m := range e.queue {
		e.metricPrefetched(m, -1)
		e.dequeued(m)
		if st := m.stream; st != nil {
			st.msg = nil // out of the queue already
			e.endStream(st, errors.New("dropped from the receiver queue"))
		}
	}
	clear(e.queue)
	e.queue = e.queue[:0]
	e.dropParked()
	var zero T
	e.head, e.headSet = zero, false
}

// Close closes the consumer on the broker (pending acknowledgments are
// sent first) and stops the engine. It is idempotent.
func (e *Engine[T]) Close() {
	e.closeOnce.Do(func() {
		var cn *conn.Conn
		_ = e.call(func() {
			e.flushAcks()
			e.breakStreams(ErrClosed, true)
			cn = e.cn
			e.state = stateClosed
			e.gen++
			e.cn = nil
			e.clearQueue()
		})
		if cn != nil {
			ctx, cancel := context.WithTimeout(e.ctx, e.o.OperationTimeout)
			e.closeOnBroker(ctx, cn)
			cancel()
		}
		e.metricClosed()
		e.cancel()
		select {
		case <-e.quit:
		default:
			close(e.quit)
		}
		e.kick()
		<-e.done
	})
}

// Done is closed once the engine has stopped.
func (e *Engine[T]) Done() <-chan struct{} { return e.done }

// Topic returns the engine's topic.
func (e *Engine[T]) Topic() string { return e.o.Topic }

// Partition returns the engine's partition index (-1 for none).
func (e *Engine[T]) Partition() int32 { return e.o.Partition }

// ReachedEndOfTopic reports whether the broker said the topic is
// terminated and everything was delivered.
func (e *Engine[T]) ReachedEndOfTopic() bool {
	var eot bool
	_ = e.call(func() { eot = e.endOfTopic && len(e.queue) == 0 && len(e.parked) == 0 })
	return eot
}

// waitReady waits until a subscription of at least generation gen is
// ready.
func (e *Engine[T]) waitReady(ctx context.Context, gen uint64) error {
	ch := make(chan struct{})
	if err := e.call(func() {
		if e.gen >= gen && e.state == stateReady {
			close(ch)
			return
		}
		e.waiters = append(e.waiters, ch)
	}); err != nil {
		return err
	}
	select {
	case <-ch:
		return nil
	case <-e.done:
		return ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("waiting for the subscription: %w", ctx.Err())
	}
}
