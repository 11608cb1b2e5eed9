package brokerstub

import (
	"github.com/pulsargo/sdk/brokerstub/internal/console"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

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
