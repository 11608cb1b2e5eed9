package admin

import (
	"github.com/pulsargo/sdk/brokerstub/internal/console"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

func (s consoleSource) Cursor(full, sub string, limit int) (console.Cursor, error) {
	var out console.Cursor
	var subErr error
	err := s.onTopic(full, func(t *engine.Topic) {
		sb, err := subOf(t, sub)
		if err != nil {
			subErr = err
			return
		}
		cur := sb.Cur.Current()
		out = console.Cursor{Topic: full, Subscription: sb.Summary(), Persisted: engine.PosString(sb.Cur.PersistedMarkDelete()),
			AckedRanges: [][2]string{}, Entries: []console.CursorEntry{}, Limit: limit, Replay: sb.Replay.Len()}
		for _, r := range cur.Ranges {
			out.AckedRanges = append(out.AckedRanges, [2]string{engine.PosString(r[0]), engine.PosString(r[1])})
		}
		holder := map[ledger.Position]string{}
		for _, cs := range sb.Consumers {
			for p := range cs.Pending {
				holder[p] = cs.Name
			}
		}
		delayed := map[ledger.Position]bool{}
		for _, p := range sb.DelayedPositions() {
			delayed[p] = true
		}
		out.Delayed = len(delayed)
		acks := t.Txn.Acks(sub)
		out.PendingAcks = acks.Len()
		md := sb.Cur.MarkDelete()
		t.Led.Scan(ledger.Position{Ledger: md.Ledger, Entry: md.Entry + 1}, func(e ledger.Entry) bool {
			if e.Pos.Compare(md) <= 0 {
				return true
			}
			if len(out.Entries) == limit {
				out.More = true
				return false
			}
			out.Entries = append(out.Entries, sb.CursorEntry(e, holder, delayed, acks))
			return true
		})
	})
	if err == nil {
		err = subErr
	}
	return out, err
}
