package ledger

import (
	"fmt"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
)

// Pending is an entry handed to the store by AppendAsync and not yet part
// of the Ledger: it has its position, and becomes readable (Get, Next,
// Len, Last) only when Finish is given it with the store's outcome.
type Pending struct {
	it    item
	err   error
	added bool // Append stored it synchronously and added it already
}

// Pos returns the position AppendAsync gave the entry.
func (p Pending) Pos() Position { return p.it.pos }

// AppendAsync stores an entry as Append does (a copy unless b.Own is Given:
// the caller may reuse meta and payload once it returns) but does not wait for the
// store when it can pipeline appends (store.AsyncAppender): it gives the
// entry the next position, hands it to the store and returns. onDone is
// called once with the entry and the store's outcome: from the store's
// goroutine once the entry is durable or failed, or before AppendAsync
// returns with a synchronous store or an entry refused at once. The owner
// of the Ledger must then call Finish with it, on its own goroutine and in
// the order of the AppendAsync calls; until then the entry is not in the
// Ledger, so nothing reads or delivers an entry that is not durable.
//
// After a failure the next append (Append or AppendAsync) starts a new
// ledger, as with Append; entries already queued in the failed ledger fail
// too (the store refuses them after the failed one).
func (l *Ledger) AppendAsync(b Bytes, publishTime uint64, numMessages int32, onDone func(Pending)) {
	as, ok := l.st.(store.AsyncAppender)
	if !ok {
		pos, err := l.Append(b, publishTime, numMessages)
		onDone(Pending{it: item{pos: pos}, err: err, added: true})
		return
	}
	it, payload, err := l.nextEntry(b, publishTime, numMessages)
	if err != nil {
		onDone(Pending{err: err})
		return
	}
	l.committed(it)
	as.AppendEntryAsync(l.topic, it.stored(payload), func(err error) {
		if err != nil {
			err = fmt.Errorf("ledger: topic %q: append %s: %w", l.topic, it.pos, err)
		}
		onDone(Pending{it: it, err: err})
	})
}

// Pipelines reports whether AppendAsync hands entries to the store without
// waiting (the store is a store.AsyncAppender); when it does not,
// AppendAsync is Append followed by its callback.
func (l *Ledger) Pipelines() bool {
	_, ok := l.st.(store.AsyncAppender)
	return ok
}

// Finish adds a pending entry to the Ledger once the store has it, or
// records its failure so that the next append starts a new ledger, and
// returns its position or the error.
func (l *Ledger) Finish(p Pending) (Position, error) {
	switch {
	case p.added:
		return p.it.pos, p.err
	case p.err != nil:
		l.roll = true
		return Position{}, p.err
	}
	l.add(p.it)
	return p.it.pos, nil
}
