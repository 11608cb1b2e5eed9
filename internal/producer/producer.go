package producer

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/compress"
)

// state is the lifecycle of a Producer.
type state int

const (
	stateOpen    state = iota // accepting messages
	stateClosing              // Close is flushing; Send fails
	stateClosed               // everything failed or done
)

// Producer is the engine of one producer on one topic or partition. It is
// safe for concurrent use.
type Producer struct {
	opts  Options
	log   *slog.Logger
	codec compress.Codec

	permits chan struct{} // one token per pending message
	gate    *gate         // orders sends around a chunked message being fed
	cbs     *runner       // runs callbacks in completion order
	life    context.Context
	stop    context.CancelFunc
	loop    sync.WaitGroup // the reattach goroutine, while it runs

	lastSeq atomic.Int64
	stats   counters

	mu         sync.Mutex
	state      state
	name       string
	userName   bool // the name was given by the user
	conn       Conn // current connection; nil before the first connect
	ready      bool // registered on conn; entries are written as queued
	gen        uint64
	epoch      uint64
	maxMsg     int
	nextSeq    uint64
	seqInit    bool
	schemaVer  []byte // the version of opts.Schema from PRODUCER_SUCCESS
	queue      queue
	enqueued   uint64 // entries ever enqueued: the order of the last one
	batches    batches
	batchTimer bool
	timeoutOn  bool
	// stopBatchTimer and stopTimeout stop the batch and send-timeout
	// timers; Close stops them (see timerRef).
	stopBatchTimer, stopTimeout func() bool
	ref                         *timerRef
	closed                      chan struct{}

	kicked      bool // a lost registration asks reattach to re-attach
	reattaching bool // the reattach goroutine runs
}

// New creates the producer on the broker, retrying retriable failures
// within OperationTimeout (bounded by ctx too), and returns it ready to
// send.
func New(ctx context.Context, opts Options) (*Producer, error) {
	opts = opts.withDefaults()
	if opts.Topic == "" || opts.Connect == nil {
		return nil, fmt.Errorf("producer: Topic and Connect are required")
	}
	codec, err := compress.Lookup(opts.Compression)
	if err != nil {
		return nil, fmt.Errorf("producer: %w", err)
	}
	life, stop := context.WithCancel(context.Background())
	p := &Producer{
		opts: opts, codec: codec,
		log:     opts.Logger.With("topic", opts.Topic, "producer_id", opts.ProducerID),
		permits: make(chan struct{}, opts.MaxPendingMessages),
		gate:    newGate(),
		cbs:     newRunner(),
		life:    life, stop: stop,
		name: opts.Name, userName: opts.Name != "",
		closed: make(chan struct{}),
	}
	p.batches.window = opts.MaxPendingMessages
	p.batches.bufs = opts.Buffers
	if p.batches.bufs == nil {
		p.batches.bufs = &Buffers{}
	}
	if !opts.DisableBatching {
		p.batches.spare = &spareMsgs{}
	}
	p.ref = &timerRef{}
	p.ref.p.Store(p)
	p.lastSeq.Store(-1)
	ctx, cancel := context.WithTimeout(ctx, opts.OperationTimeout)
	defer cancel()
	if err := p.connectRetrying(ctx, true); err != nil {
		stop()
		p.cbs.close()
		return nil, err
	}
	p.opts.Metrics.Add(api.MetricProducersPartitions, 1)
	return p, nil
}

// Topic returns the topic or partition name.
func (p *Producer) Topic() string { return p.opts.Topic }

// Name returns the producer name (the broker's choice when none was given).
func (p *Producer) Name() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.name
}

// LastSequenceID returns the highest sequence id the broker acknowledged,
// -1 before any.
func (p *Producer) LastSequenceID() int64 { return p.lastSeq.Load() }

// assignSeq returns m's sequence id. Called with p.mu held.
func (p *Producer) assignSeq(m *Message) uint64 {
	if m.SequenceID != nil {
		return uint64(*m.SequenceID)
	}
	s := p.nextSeq
	p.nextSeq++
	return s
}

// Flush sends the open batches and waits until every message accepted so
// far is acknowledged or failed and its callback has run. It returns the
// error of the last entry, if it failed, or ctx's error.
func (p *Producer) Flush(ctx context.Context) error {
	p.mu.Lock()
	if p.state == stateClosed {
		p.mu.Unlock()
		return api.ErrProducerClosed
	}
	p.flushBatches()
	last := p.queue.last()
	p.mu.Unlock()
	if last == nil {
		return nil
	}
	// Entries usually finish in order, so waiting for the last one is
	// enough; one failed out of order (a broker's send error) may finish
	// before older ones, so wait for every older one still queued too.
	for e := last; e != nil; e = p.olderPending(last.order) {
		if err := p.awaitEntry(ctx, e); err != nil {
			return err
		}
	}
	// Every entry finished and so has queued its callbacks: once the
	// callback runner gets past this point, they have run.
	if err := p.cbs.barrier(ctx); err != nil {
		return err
	}
	return last.err // written before it finished
}

// olderPending returns the oldest queued entry enqueued no later than the
// entry of order n, or nil.
func (p *Producer) olderPending(n uint64) *entry {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.queue.peek(); e != nil && e.order <= n {
		return e
	}
	return nil
}

// awaitEntry waits until e finished (acknowledged or failed), or ctx ends.
func (p *Producer) awaitEntry(ctx context.Context, e *entry) error {
	p.mu.Lock()
	if e.finished {
		p.mu.Unlock()
		return nil
	}
	if e.done == nil {
		e.done = make(chan struct{})
	}
	done := e.done
	p.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close flushes what is pending (bounded by ctx), fails what remains with
// the Closed error, closes the producer on the broker and waits for every
// callback to have run. It is idempotent.
func (p *Producer) Close(ctx context.Context) {
	p.mu.Lock()
	if p.state != stateOpen {
		p.mu.Unlock()
		<-p.closed
		return
	}
	p.state = stateClosing
	p.mu.Unlock()

	if err := p.Flush(ctx); err != nil {
		p.log.Warn("close: flush incomplete", "err", err)
	}

	p.mu.Lock()
	p.state = stateClosed
	p.opts.Metrics.Add(api.MetricProducersPartitions, -1)
	c, ready := p.conn, p.ready
	p.ready = false
	p.gen++ // ignore anything the connection still routes to us
	rest := p.queue.takeAll()
	var open []*batch
	for !p.batches.empty() {
		b := p.batches.open[0]
		p.batches.detach(b)
		open = append(open, b)
	}
	for _, e := range rest {
		p.finish(e, nil, api.ErrProducerClosed)
	}
	for _, b := range open {
		p.finish(&entry{msgs: b.msgs, mem: b.mem}, nil, api.ErrProducerClosed)
	}
	p.stopTimers()
	p.mu.Unlock()

	p.stop()
	p.loop.Wait()
	if ready {
		p.closeOnBroker(ctx, c)
	}
	p.cbs.close()
	close(p.closed)
}

// timerRef is how the producer's timers reach it: until Close, which
// clears it. A stopped runtime timer keeps its function until the runtime
// drops it from its heap, which may be when it would have fired (the send
// timeout: 30 s); a function that held the producer would keep a closed
// producer — its batch buffers, and through them its topic's and its
// client's — reachable until then.
type timerRef struct{ p atomic.Pointer[Producer] }

// afterFunc runs f on the producer after d, unless it closed meanwhile; it
// returns the function that stops the timer.
func (p *Producer) afterFunc(d time.Duration, f func(*Producer)) func() bool {
	ref := p.ref
	return p.opts.Clock.AfterFunc(d, func() {
		if p := ref.p.Load(); p != nil {
			f(p)
		}
	})
}

// stopTimers stops the batch and send-timeout timers, if armed, and lets
// go of timers that may linger in the runtime. Called with p.mu held, once
// the producer is closed (nothing arms them again).
func (p *Producer) stopTimers() {
	p.ref.p.Store(nil)
	for _, stop := range []*func() bool{&p.stopBatchTimer, &p.stopTimeout} {
		if *stop != nil {
			(*stop)()
			*stop = nil
		}
	}
	p.batchTimer, p.timeoutOn = false, false
}

// waitRoom blocks until a pending-message permit and mem bytes of memory
// are held, or fails: with ErrSendQueueIsFull or ErrMemoryBufferIsFull when
// blocking is off, the TooLarge error for a message larger than the memory
// limit, the Timeout error when the send timeout passes first, the Closed
// error when the producer closes, or ctx's error.
//
// at, if not nil, is when the send was called: read before a wait, so that
// the send timeout counts it.
func (p *Producer) waitRoom(ctx context.Context, mem int64, at *sendTime) error {
	if lim := p.opts.Memory.Limit(); lim > 0 && mem > lim {
		return p.tooLargeForMemory(mem, lim)
	}
	// Fast path: room now.
	select {
	case p.permits <- struct{}{}:
		if p.opts.Memory.TryReserve(mem) {
			return nil
		}
		if p.opts.DisableBlockIfQueueFull {
			<-p.permits
			return fmt.Errorf("%w: %d bytes do not fit in the client's memory limit of %d (ClientOptions.MemoryLimitBytes) now",
				api.ErrMemoryBufferIsFull, mem, p.opts.Memory.Limit())
		}
		<-p.permits
	default:
		if p.opts.DisableBlockIfQueueFull {
			return fmt.Errorf("%w: %d messages pending (ProducerOptions.MaxPendingMessages)", api.ErrSendQueueIsFull, p.opts.MaxPendingMessages)
		}
	}
	if at != nil {
		at.now()
	}
	wctx, stop := p.waitCtx(ctx)
	defer stop()
	select {
	case p.permits <- struct{}{}:
	case <-wctx.Done():
		return waitErr(ctx, wctx)
	}
	if err := p.opts.Memory.Reserve(wctx, mem); err != nil {
		<-p.permits
		if wctx.Err() != nil {
			return waitErr(ctx, wctx)
		}
		return err
	}
	return nil
}

// tooLargeForMemory is the error of a message of mem bytes, counted whole,
// that can never fit in the memory limit lim: it says what to change.
func (p *Producer) tooLargeForMemory(mem, lim int64) error {
	hint := "raise ClientOptions.MemoryLimitBytes"
	switch {
	case p.opts.Compression != 0:
		hint += " (a compressed message is held and counted whole: it is compressed before it is chunked; an uncompressed chunked message counts only its chunks in flight)"
	case !p.opts.EnableChunking:
		hint += ", or set ProducerOptions.EnableChunking and a ChunkMaxMessageSize below it"
	default:
		hint += ", or set ProducerOptions.ChunkMaxMessageSize below it"
	}
	return api.Detailed(api.ErrMessageTooLarge, "message of %d bytes exceeds the client's memory limit of %d bytes: %s", mem, lim, hint)
}

// waitCtx is ctx for a wait for room: it also ends, with its cause, when
// the producer closes or the send timeout passes. stop releases it.
func (p *Producer) waitCtx(ctx context.Context) (wctx context.Context, stop func()) {
	wctx, cancel := context.WithCancelCause(ctx)
	stopLife := context.AfterFunc(p.life, func() { cancel(api.ErrProducerClosed) })
	stopTimer := func() bool { return true }
	if p.opts.SendTimeout > 0 {
		stopTimer = p.opts.Clock.AfterFunc(p.opts.SendTimeout, func() {
			cancel(fmt.Errorf("%w: no room within %v", api.ErrSendTimeout, p.opts.SendTimeout))
		})
	}
	return wctx, func() {
		stopTimer()
		stopLife()
		cancel(nil)
	}
}

// waitErr is why a wait on wctx (derived from ctx) ended: the caller's ctx
// as ErrContextExpired (the official client's error) wrapping ctx's error,
// or the cause the wait was cancelled with.
func waitErr(ctx, wctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", api.ErrContextExpired, err)
	}
	return context.Cause(wctx)
}

// closeOnBroker sends CLOSE_PRODUCER and stops routing.
func (p *Producer) closeOnBroker(ctx context.Context, c Conn) {
	ctx, cancel := context.WithTimeout(ctx, p.opts.OperationTimeout)
	defer cancel()
	p.requestClose(ctx, c)
	c.UnregisterProducer(p.opts.ProducerID)
}

// sleep waits d on the producer's clock; it reports false when the
// producer closed first.
func (p *Producer) sleep(ctx context.Context, d time.Duration) bool {
	ch := make(chan struct{})
	stop := p.opts.Clock.AfterFunc(d, func() { close(ch) })
	defer stop()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}
