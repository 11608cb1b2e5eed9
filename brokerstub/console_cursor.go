package brokerstub

import (
	"fmt"

	"github.com/pulsargo/sdk/brokerstub/internal/console"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
)

// peekInfo parses an entry's metadata without adding it to the topic's
// cache (a console must not change what dispatch holds).
func (t *topic) peekInfo(e ledger.Entry) *entryInfo {
	if in, ok := t.infos[e.Pos]; ok {
		return in
	}
	return parseEntryInfo(e)
}

func (s consoleSource) Cursor(full, sub string, limit int) (console.Cursor, error) {
	var out console.Cursor
	var subErr error
	err := s.onTopic(full, func(t *topic) {
		sb, err := subOf(t, sub)
		if err != nil {
			subErr = err
			return
		}
		cur := sb.cur.Current()
		out = console.Cursor{Topic: full, Subscription: sb.summary(), Persisted: posString(sb.cur.PersistedMarkDelete()),
			AckedRanges: [][2]string{}, Entries: []console.CursorEntry{}, Limit: limit, Replay: sb.replay.Len()}
		for _, r := range cur.Ranges {
			out.AckedRanges = append(out.AckedRanges, [2]string{posString(r[0]), posString(r[1])})
		}
		holder := map[ledger.Position]string{}
		for _, cs := range sb.consumers {
			for p := range cs.pending {
				holder[p] = cs.name
			}
		}
		delayed := map[ledger.Position]bool{}
		for _, p := range sb.delayedPositions() {
			delayed[p] = true
		}
		out.Delayed = len(delayed)
		acks := t.txn.Acks(sub)
		out.PendingAcks = acks.Len()
		md := sb.cur.MarkDelete()
		t.led.Scan(ledger.Position{Ledger: md.Ledger, Entry: md.Entry + 1}, func(e ledger.Entry) bool {
			if e.Pos.Compare(md) <= 0 {
				return true
			}
			if len(out.Entries) == limit {
				out.More = true
				return false
			}
			out.Entries = append(out.Entries, sb.cursorEntry(e, holder, delayed, acks))
			return true
		})
	})
	if err == nil {
		err = subErr
	}
	return out, err
}

// cursorEntry is one entry's state for the cursor line. Topic goroutine.
func (s *subscription) cursorEntry(e ledger.Entry, holder map[ledger.Position]string, delayed map[ledger.Position]bool, acks *txn.PendingAcks) console.CursorEntry {
	in := s.t.peekInfo(e)
	ce := console.CursorEntry{Pos: posString(e.Pos), Key: string(in.key), DeliverAt: in.deliverAt, Redelivered: s.redeliveries[e.Pos]}
	if in.batched {
		ce.Batch = in.numMessages
	}
	if in.uuid != "" {
		ce.Chunk = fmt.Sprintf("%s %d/%d", in.uuid, in.chunkID+1, in.numChunks)
	}
	if in.inTxn {
		ce.Txn = in.txn.String()
	}
	if s.ks != nil && len(in.key) > 0 {
		h := s.ks.Hash(in.murmur)
		ce.Hash = &h
	}
	switch {
	case s.cur.IsAcked(e.Pos):
		ce.State = "acked"
	case holder[e.Pos] != "":
		ce.State, ce.Consumer = "pending", holder[e.Pos]
	case s.replay.Contains(e.Pos):
		ce.State = "replay"
	case delayed[e.Pos]:
		ce.State = "delayed"
	case e.Pos.Compare(s.readPos) > 0:
		ce.State = "unread"
	default:
		ce.State = "held"
	}
	if set := s.cur.AckSet(e.Pos); set != nil && in.batched {
		for i := range min(int(in.numMessages), 64*len(set)) {
			if set[i/64]&(1<<(i%64)) == 0 {
				ce.AckedIndexes = append(ce.AckedIndexes, i)
			}
		}
		// A delivered or queued entry keeps that state (its bits are
		// drawn on it); one waiting to be read is "partial".
		if len(ce.AckedIndexes) > 0 && (ce.State == "unread" || ce.State == "held") {
			ce.State = "partial"
		}
	}
	for _, pa := range acks.At(e.Pos) {
		ce.TxnAck = pa.Txn.String()
		for i := range int(in.numMessages) {
			if pa.Ack.AckSet != nil && i/64 < len(pa.Ack.AckSet) && pa.Ack.AckSet[i/64]&(1<<(i%64)) == 0 {
				ce.TxnAcks = append(ce.TxnAcks, int64(i))
			}
		}
	}
	if cum, ok := acks.Cumulative(); ok && e.Pos.Compare(cum.Ack.Pos()) <= 0 {
		ce.TxnAck = cum.Txn.String() + " cumulative"
	}
	return ce
}
