package txn

import (
	"errors"
	"slices"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// Rebuild reads which transactions are open and which aborted from the
// entries; the max-read position is the first entry of the oldest open
// one, and aborted messages and markers are hidden.
func TestBufferRebuildAndReadLimit(t *testing.T) {
	a, b, c := ID{0, 1}, ID{0, 2}, ID{0, 3}
	es := entries{
		{Pos: pos(0), Messages: 1},                      // plain
		{Pos: pos(1), InTxn: true, Txn: a, Messages: 1}, // a, aborted later
		{Pos: pos(2), InTxn: true, Txn: b, Messages: 1}, // b, open
		{Pos: pos(3), InTxn: true, Txn: c, Messages: 1}, // c, committed later
		{Pos: pos(4), InTxn: true, Txn: a, Marker: MarkerAbort},
		{Pos: pos(5), InTxn: true, Txn: c, Marker: MarkerCommit},
		{Pos: pos(6), InTxn: true, Txn: a, Messages: 1}, // after a's end: not open again
	}
	buf := Rebuild(es.all)
	if !buf.IsOpen(b) || buf.IsOpen(a) || buf.IsOpen(c) {
		t.Errorf("open: a %v b %v c %v", buf.IsOpen(a), buf.IsOpen(b), buf.IsOpen(c))
	}
	if lim, ok := buf.ReadLimit(); !ok || lim != pos(2) {
		t.Errorf("read limit %v %v", lim, ok)
	}
	if last, ok := buf.LastDispatchable(es); !ok || last != pos(0) {
		t.Errorf("last dispatchable %v %v, want 1:0 (before b's first entry)", last, ok)
	}
	for i, want := range []bool{false, true, false, false, true, true, true} {
		if got := buf.Hidden(es[i]); got != want {
			t.Errorf("hidden %v: %v", es[i].Pos, got)
		}
	}
	if st := buf.InBuffer(a); st.StartPosition != nil || !st.Aborted {
		t.Errorf("a in buffer %+v", st)
	}
	if st := buf.InBuffer(b); st.StartPosition == nil || *st.StartPosition != "1:2" || st.Aborted {
		t.Errorf("b in buffer %+v", st)
	}

	// b commits with its marker at 1:7: nothing limits the reads any more.
	buf.Ended(b, true, pos(7))
	es = append(es, Entry{Pos: pos(7), InTxn: true, Txn: b, Marker: MarkerCommit})
	if _, ok := buf.ReadLimit(); ok {
		t.Error("a read limit with nothing open")
	}
	if last, ok := buf.LastDispatchable(es); !ok || last != pos(3) {
		t.Errorf("last dispatchable %v %v, want 1:3 (c's message)", last, ok)
	}

	// Skip acknowledges what is hidden.
	cur := newCursor()
	if !buf.Skip(es, cur, pos(1)) || !cur.acked[pos(1)] {
		t.Error("an aborted message is not skipped")
	}
	if buf.Skip(es, cur, pos(3)) || cur.acked[pos(3)] {
		t.Error("a committed message is skipped")
	}

	// Retention trimmed a's marker: a is forgotten.
	if buf.Aborted() != 1 {
		t.Fatalf("aborted %d", buf.Aborted())
	}
	buf.PruneAborted(func(p ledger.Position) bool { return pos(4).Less(p) })
	if buf.Aborted() != 0 || buf.InBuffer(a).Aborted {
		t.Error("a's trimmed marker is still remembered")
	}
}

// A nil buffer (transactions off, a non-persistent topic) limits nothing
// and hides only markers.
func TestNilBuffer(t *testing.T) {
	var buf *Buffer
	es := entries{{Pos: pos(0), Messages: 1}, {Pos: pos(1), InTxn: true, Marker: MarkerCommit}}
	if _, ok := buf.ReadLimit(); ok {
		t.Error("read limit")
	}
	if last, ok := buf.LastDispatchable(es); !ok || last != pos(1) {
		t.Errorf("last %v %v: without a buffer the last entry", last, ok)
	}
	if !buf.Hidden(es[1]) || buf.Hidden(es[0]) || buf.IsOpen(ID{}) || buf.Skip(es, newCursor(), pos(1)) {
		t.Error("nil buffer")
	}
	if buf.Acks("s").Len() != 0 || buf.Aborted() != 0 || buf.InBuffer(ID{}).Aborted {
		t.Error("nil buffer holds something")
	}
	buf.PruneAborted(nil)
	buf.EndSub("s", ID{})
	if err := buf.Ack(nil, ID{}, "s", newCursor(), nil); !errors.Is(err, ErrDisabled) {
		t.Errorf("ack: %v", err)
	}
}

// Orphans are transactions open in the ledger that the coordinator does
// not know; LoadAcks holds again what it keeps pending.
func TestBufferOrphansAndLoadAcks(t *testing.T) {
	c := newRig().load(t, Config{})
	known := mustNew(t, c, ByBroker, 0)
	gone := ID{0, 99}
	buf := Rebuild(entries{{Pos: pos(0), InTxn: true, Txn: known}, {Pos: pos(1), InTxn: true, Txn: gone}}.all)
	if got := buf.Orphans(c); !slices.Equal(got, []ID{gone}) {
		t.Errorf("orphans %v", got)
	}
	if err := c.recordAcks(known, []Ack{{Topic: "t", Sub: "s", Ledger: 1, Entry: 5}, {Topic: "other", Sub: "s", Entry: 6}}); err != nil {
		t.Fatal(err)
	}
	buf.LoadAcks(c, "t")
	if pa := buf.Acks("s"); pa.Len() != 1 || len(pa.At(pos(5))) != 1 || pa.At(pos(5))[0].Txn != known {
		t.Errorf("loaded acks %+v", pa)
	}
}

func TestMarker(t *testing.T) {
	id := ID{Most: 0, Least: 300}
	raw, err := Marker(id, true, 1234)
	if err != nil {
		t.Fatal(err)
	}
	// The id is appended as fields 22 (least) and 23 (most), varints:
	// tags 0xb0 0x01 and 0xb8 0x01, 300 is 0xac 0x02.
	if tail := raw[len(raw)-7:]; !slices.Equal(tail, []byte{0xb0, 0x01, 0xac, 0x02, 0xb8, 0x01, 0}) {
		t.Errorf("tagged tail % x", tail)
	}
	abort, _ := Marker(id, false, 1234)
	if slices.Equal(raw, abort) {
		t.Error("commit and abort markers are the same")
	}
}
