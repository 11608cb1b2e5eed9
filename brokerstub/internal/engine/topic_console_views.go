package engine

import (
	"net/http"
	"slices"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/console"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// The web console's views of a topic and of a subscription (its pages 2
// to 4), built on the topic goroutine (Topic.Call); console_views.go has
// the per-entry and per-subscription parts.

// ConsoleTopic is the console's page of the topic called full: its
// counters, producers (and those waiting for access), subscriptions and
// ledgers. It prunes the counters of clients gone first.
func (t *Topic) ConsoleTopic(full string) console.Topic {
	t.Prune()
	out := console.Topic{Name: full, Terminated: t.adm.terminated, MsgIn: t.adm.in.msgs, BytesIn: t.adm.in.bytes,
		MsgOut: t.adm.out.msgs, StorageSize: t.storageSize(), Producers: []console.Producer{},
		Subscriptions: []console.Subscription{}, Ledgers: []console.Ledger{}}
	for p := range t.producers {
		cp := console.Producer{ID: p.id, Name: p.name, AccessMode: accessModeName(p.mode)}
		if pi := t.adm.producers[p]; pi != nil {
			cp.Address, cp.MsgIn, cp.BytesIn = pi.address, pi.msgs, pi.bytes
		}
		out.Producers = append(out.Producers, cp)
	}
	slices.SortFunc(out.Producers, func(a, b console.Producer) int { return strings.Compare(a.Name, b.Name) })
	if t.Access != nil {
		for _, w := range t.Access.Waiting {
			out.Waiting = append(out.Waiting, w.p.name)
		}
	}
	for _, sub := range t.Subs {
		cs := sub.summary()
		out.Backlog += cs.Backlog
		out.Subscriptions = append(out.Subscriptions, cs)
	}
	slices.SortFunc(out.Subscriptions, func(a, b console.Subscription) int { return strings.Compare(a.Name, b.Name) })
	for _, sg := range t.Led.Segments() {
		out.Ledgers = append(out.Ledgers, console.Ledger{ID: sg.ID, Entries: sg.Entries, Size: sg.Size, Current: sg.ID == t.Led.CurrentLedger()})
	}
	if p, ok := t.Led.First(); ok {
		out.First = PosString(p)
	}
	if p, ok := t.Led.Last(); ok {
		out.Last = PosString(p)
	}
	return out
}

func accessModeName(m proto.ProducerAccessMode) string {
	return strings.ToUpper(m.String()[:1]) + m.String()[1:]
}

// LedgerPage is a page of a topic's ledger for the console's message
// browser: the positions of the ledger's first and last entries, of the
// previous page's start and of the next page's (each "" when none), and
// the entries copied out.
type LedgerPage struct {
	First, Last, Prev, Next string
	Entries                 []PageEntry
}

// PageEntry is one entry of a LedgerPage: its metadata, and its payload
// when that fitted (nil otherwise); Size is metadata and payload's.
type PageEntry struct {
	Pos        ledger.Position
	Meta, Body []byte
	Size       int
}

// ReadPage copies out at most n entries from start (from the first entry
// when fromFirst). A payload larger than maxEntry, or than what is left
// of maxPage, is left out.
func (t *Topic) ReadPage(start ledger.Position, fromFirst bool, n, maxEntry, maxPage int) LedgerPage {
	var out LedgerPage
	budget := maxPage
	if p, ok := t.Led.First(); ok {
		out.First = PosString(p)
		if fromFirst {
			start = p
		}
	}
	if p, ok := t.Led.Last(); ok {
		out.Last = PosString(p)
	}
	if p, ok := t.Led.Prev(start); ok {
		back := p
		for range n - 1 {
			if q, ok := t.Led.Prev(back); ok {
				back = q
			}
		}
		if back.Compare(start) < 0 {
			out.Prev = PosString(back)
		}
	}
	t.Led.Scan(start, func(e ledger.Entry) bool {
		if len(out.Entries) == n {
			out.Next = PosString(e.Pos)
			return false
		}
		r := PageEntry{Pos: e.Pos, Meta: slices.Clone(e.Meta), Size: len(e.Meta) + len(e.Payload)}
		if len(e.Payload) <= min(maxEntry, budget) {
			r.Body = slices.Clone(e.Payload)
			budget -= len(e.Payload)
		}
		out.Entries = append(out.Entries, r)
		return true
	})
	return out
}

// ConsoleCursor is the console's page of the subscription's cursor on the
// topic called full: its acked ranges, and the state of at most limit
// entries after mark-delete.
func (s *Subscription) ConsoleCursor(full string, limit int) console.Cursor {
	t := s.t
	cur := s.Cur.Current()
	out := console.Cursor{Topic: full, Subscription: s.summary(), Persisted: PosString(s.Cur.PersistedMarkDelete()),
		AckedRanges: [][2]string{}, Entries: []console.CursorEntry{}, Limit: limit, Replay: s.replay.Len()}
	for _, r := range cur.Ranges {
		out.AckedRanges = append(out.AckedRanges, [2]string{PosString(r[0]), PosString(r[1])})
	}
	holder := map[ledger.Position]string{}
	for _, cs := range s.Consumers {
		for p := range cs.pending {
			holder[p] = cs.name
		}
	}
	delayed := map[ledger.Position]bool{}
	for _, p := range s.delayedPositions() {
		delayed[p] = true
	}
	out.Delayed = len(delayed)
	acks := t.Txn.Acks(s.name)
	out.PendingAcks = acks.Len()
	md := s.Cur.MarkDelete()
	t.Led.Scan(ledger.Position{Ledger: md.Ledger, Entry: md.Entry + 1}, func(e ledger.Entry) bool {
		if e.Pos.Compare(md) <= 0 {
			return true
		}
		if len(out.Entries) == limit {
			out.More = true
			return false
		}
		out.Entries = append(out.Entries, s.cursorEntry(e, holder, delayed, acks))
		return true
	})
	return out
}

// ConsoleKeyShared is the console's page of a Key_Shared subscription's
// dispatcher; a subscription of another type is refused (409).
func (s *Subscription) ConsoleKeyShared() (console.KeyShared, error) {
	if s.ks == nil || s.typ != proto.CommandSubscribe_Key_Shared {
		return console.KeyShared{}, &console.Problem{Status: http.StatusConflict, Reason: "Subscription " + s.name + " is " + subTypeNames[s.typ] + ", not Key_Shared"}
	}
	return s.keySharedView(), nil
}
