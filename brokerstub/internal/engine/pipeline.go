package engine

import (
	"sync"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// Pipelined appends. With a data dir the store syncs each commit; a topic
// goroutine that waited for every entry's sync would take a few hundred
// entries a second however many producers send to it. Instead it hands
// each entry to the store (ledger.AppendAsync) and goes on taking SENDs;
// the store commits the entries that arrived together with one sync
// (store/bolt_group.go) and reports them, in order, to the topic's durable
// queue; the topic goroutine then finishes them — adds them to the ledger,
// sends the receipts, dispatches — so nothing is acknowledged or delivered
// before it is durable. With the in-memory store an append completes at
// once and is finished before the SEND's handler returns, as before.
//
// Deduplication needs the outcome of one entry before it judges the next
// SEND of the producer (Pulsar's "pushed but not persisted" status), so a
// topic with deduplication on appends synchronously.

// durableQueue holds the appends the store has reported and the topic
// goroutine has not finished yet. The store's goroutine pushes; the topic
// goroutine pops.
type durableQueue struct {
	mu   sync.Mutex
	done []finishedAppend
	wake chan struct{} // capacity 1: done has become non-empty
}

// finishedAppend is one reported append and what to do with its outcome.
type finishedAppend struct {
	p      ledger.Pending
	finish func(ledger.Position, error)
}

func newDurableQueue() durableQueue { return durableQueue{wake: make(chan struct{}, 1)} }

// push queues a reported append; any goroutine, never blocks.
func (q *durableQueue) push(f finishedAppend) {
	q.mu.Lock()
	q.done = append(q.done, f)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take returns the queued appends, in order, into buf.
func (q *durableQueue) take(buf []finishedAppend) []finishedAppend {
	q.mu.Lock()
	buf = append(buf, q.done...)
	clear(q.done)
	q.done = q.done[:0]
	q.mu.Unlock()
	return buf
}

// AppendEntry stores an entry and calls finish on the topic goroutine with
// its position once it is durable (or with the store's error); the topic's
// subscriptions are dispatched after finish. With sync, deduplication on or
// a store that does not pipeline (the in-memory one) finish is called
// before appendEntry returns. The ledger copies b's bytes before
// appendEntry returns, unless b.Own is ledger.Given. Topic goroutine.
func (t *Topic) AppendEntry(b ledger.Bytes, publishTime uint64, num int32, sync bool, finish func(ledger.Position, error)) {
	if t.dedup != nil || sync || !t.Led.Pipelines() {
		// The entries still in flight join the ledger first, so that this
		// one follows them.
		t.awaitDurable()
		pos, err := t.Led.Append(b, publishTime, num)
		finish(pos, err)
		if err == nil {
			t.dispatchAll()
			t.afterAppend(pos) // retention.go
		}
		return
	}
	t.inflight++
	t.Led.AppendAsync(b, publishTime, num, func(p ledger.Pending) {
		t.durable.push(finishedAppend{p: p, finish: finish})
	})
	t.finishDurable() // a synchronous store has reported already
}

// finishDurable finishes the appends the store has reported: in order, each
// joins the ledger and gets its finish call; then the subscriptions are
// dispatched once for all of them. Topic goroutine.
func (t *Topic) finishDurable() {
	t.finishing = t.durable.take(t.finishing[:0])
	if len(t.finishing) == 0 {
		return
	}
	stored := false
	for i, f := range t.finishing {
		t.inflight--
		pos, err := t.Led.Finish(f.p)
		f.finish(pos, err)
		if err == nil {
			stored = true
			t.afterAppend(pos) // retention.go: trims only what every cursor is past
		}
		t.finishing[i] = finishedAppend{}
	}
	if stored {
		t.dispatchAll()
	}
}

// awaitDurable waits for the appends handed to the store and finishes
// them, so that a graceful stop answers every SEND it took. Topic
// goroutine.
func (t *Topic) awaitDurable() {
	for t.inflight > 0 {
		<-t.durable.wake
		t.finishDurable()
	}
}
