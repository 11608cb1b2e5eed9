package txn

import (
	"errors"
	"slices"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

func ack(sub string, e int64, set ...int64) Ack {
	r := Ack{Topic: "t", Sub: sub, Ledger: 1, Entry: e, Batch: 1}
	if len(set) > 0 {
		r.AckSet, r.Batch = set, 4
	}
	return r
}

// An ack already acknowledged on the cursor, or pending in another
// transaction, conflicts; disjoint batch indexes of one entry do not.
func TestPendingAckConflicts(t *testing.T) {
	c := newRig().load(t, Config{})
	t1, t2 := mustNew(t, c, ByBroker, 0), mustNew(t, c, ByBroker, 0)
	buf := Rebuild(entries{}.all)
	cur := newCursor()
	cur.acked[pos(9)] = true

	if err := buf.Ack(c, t1, "s", cur, []Ack{ack("s", 1)}); err != nil {
		t.Fatal(err)
	}
	if err := buf.Ack(c, t2, "s", cur, []Ack{ack("s", 1)}); !errors.Is(err, ErrConflict) {
		t.Errorf("pending in t1: %v", err)
	}
	if err := buf.Ack(c, t2, "s", cur, []Ack{ack("s", 2), ack("s", 9)}); !errors.Is(err, ErrConflict) {
		t.Errorf("acknowledged: %v", err)
	}
	if len(buf.Acks("s").At(pos(2))) != 0 {
		t.Error("a refused command held part of its acks")
	}
	if err := buf.Ack(c, t1, "other", cur, []Ack{ack("other", 1)}); err != nil {
		t.Errorf("another subscription: %v", err)
	}
	// Batch indexes: t1 acks 0 and 1 of entry 3, t2 index 2; t1 index 1 again conflicts for t2.
	if err := buf.Ack(c, t1, "s", cur, []Ack{ack("s", 3, 0b1100)}); err != nil {
		t.Fatal(err)
	}
	if err := buf.Ack(c, t2, "s", cur, []Ack{ack("s", 3, 0b1011)}); err != nil {
		t.Errorf("disjoint index: %v", err)
	}
	if err := buf.Ack(c, t2, "s", cur, []Ack{ack("s", 3, 0b1101)}); !errors.Is(err, ErrConflict) {
		t.Errorf("index 1 is t1's: %v", err)
	}
	// The coordinator records every held ack for recovery.
	rec, _ := c.Snapshot(t1)
	if len(rec.Acks) != 3 || !slices.Contains(rec.Subs, Sub{"t", "other"}) {
		t.Errorf("recorded %+v", rec)
	}
	// An unknown transaction holds nothing.
	if err := buf.Ack(c, ID{0, 50}, "s", cur, []Ack{ack("s", 4)}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown txn: %v", err)
	}
	if len(buf.Acks("s").At(pos(4))) != 0 {
		t.Error("held for an unknown transaction")
	}
}

// A cumulative ack conflicts with what is already acknowledged, another
// transaction's cumulative ack, and pending acks at or below it.
func TestPendingCumulativeAck(t *testing.T) {
	c := newRig().load(t, Config{})
	t1, t2 := mustNew(t, c, ByBroker, 0), mustNew(t, c, ByBroker, 0)
	buf := Rebuild(entries{}.all)
	cur := newCursor()
	cum := func(e int64) Ack { r := ack("s", e); r.Cumulative = true; return r }

	if err := buf.Ack(c, t1, "s", cur, []Ack{cum(2)}); err != nil {
		t.Fatal(err)
	}
	if err := buf.Ack(c, t2, "s", cur, []Ack{cum(3)}); !errors.Is(err, ErrConflict) {
		t.Errorf("t1 holds the cumulative ack: %v", err)
	}
	if err := buf.Ack(c, t2, "s", cur, []Ack{ack("s", 1)}); !errors.Is(err, ErrConflict) {
		t.Errorf("under t1's cumulative ack: %v", err)
	}
	if err := buf.Ack(c, t2, "s", cur, []Ack{ack("s", 3)}); err != nil {
		t.Errorf("above it: %v", err)
	}
	if err := buf.Ack(c, t1, "s", cur, []Ack{cum(4)}); !errors.Is(err, ErrConflict) {
		t.Errorf("over t2's pending 1:3: %v", err)
	}
	held, ok := buf.Acks("s").Cumulative()
	if !ok || held.Txn != t1 || held.Ack.Pos() != pos(2) {
		t.Errorf("cumulative %+v %v", held, ok)
	}
	if buf.Acks("s").Len() != 2 {
		t.Errorf("len %d: one position and the cumulative ack", buf.Acks("s").Len())
	}
	cur.md = pos(5)
	buf.EndSub("s", t1)
	if err := buf.Ack(c, t2, "s", cur, []Ack{cum(5)}); !errors.Is(err, ErrConflict) {
		t.Errorf("at the mark-delete position: %v", err)
	}
	if _, ok := buf.Acks("s").Cumulative(); ok {
		t.Error("t1's cumulative ack outlived its end")
	}
}

// Dispatch passes over an entry wholly pending, and delivers a batch
// partly pending with those indexes marked acknowledged.
func TestPendingAcksFilterDispatch(t *testing.T) {
	c := newRig().load(t, Config{})
	t1, t2 := mustNew(t, c, ByBroker, 0), mustNew(t, c, ByBroker, 0)
	es := entries{{Pos: pos(1), Messages: 1}, {Pos: pos(2), Messages: 4}}
	buf := Rebuild(es.all)
	cur := newCursor()
	if buf.Held(es, cur, "s", pos(1)) {
		t.Error("held with nothing pending")
	}
	if err := buf.Ack(c, t1, "s", cur, []Ack{ack("s", 1), ack("s", 2, 0b1100)}); err != nil {
		t.Fatal(err)
	}
	if !buf.Held(es, cur, "s", pos(1)) || buf.Held(es, cur, "s", pos(2)) || buf.Held(es, cur, "x", pos(1)) {
		t.Error("held")
	}
	set, n := buf.DeliverAckSet("s", pos(2), 4, nil, 4)
	if !slices.Equal(set, []int64{0b1100}) || n != 2 {
		t.Errorf("deliver %b %d", set, n)
	}
	// The cursor has index 2; t2 holds index 3: all four are gone.
	cur.sets[pos(2)] = []int64{0b1011}
	if err := buf.Ack(c, t2, "s", cur, []Ack{ack("s", 2, 0b0111)}); err != nil {
		t.Fatal(err)
	}
	if !buf.Held(es, cur, "s", pos(2)) {
		t.Error("a batch acknowledged or pending in full is not held")
	}
	buf.EndSub("s", t2)
	if buf.Held(es, cur, "s", pos(2)) {
		t.Error("t2's end left its index pending")
	}
	if set, n := buf.DeliverAckSet("s", pos(9), 4, []int64{0b1}, 1); !slices.Equal(set, []int64{0b1}) || n != 1 {
		t.Error("an entry with nothing pending changed")
	}
}

func TestToApplyAndRedeliveries(t *testing.T) {
	acks := []Ack{ack("s", 1), {Sub: "s", Ledger: 1, Entry: 2, Cumulative: true}, ack("s", 3)}
	if got := ToApply(acks, false); len(got) != 3 {
		t.Errorf("exclusive: %v", got)
	}
	if got := ToApply(acks, true); len(got) != 2 || got[1].Entry != 3 || len(acks) != 3 || !acks[1].Cumulative {
		t.Errorf("shared: %v (input %v)", got, acks)
	}
	ps, all := Redeliveries(acks)
	if !slices.Equal(ps, []ledger.Position{pos(1), pos(3)}) || !all {
		t.Errorf("redeliveries %v %v", ps, all)
	}
	if _, all := Redeliveries(acks[:1]); all {
		t.Error("an individual ack redelivers all")
	}
}
