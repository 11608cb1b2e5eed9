package ledger

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
)

func ids(infos []SegmentInfo) []int64 {
	out := []int64{}
	for _, s := range infos {
		out = append(out, s.ID)
	}
	return out
}

// trimLedger returns ledgers 1, 2, 3 of two entries each (10 bytes an
// entry), closed at t=100, 200 and 300 ms, with ledger 3 full.
func trimLedger(t *testing.T, st store.Store) (*Ledger, *clock) {
	clk := &clock{}
	l := open(t, st, Options{RolloverEntries: 2, Now: clk.Now})
	for i := range 6 {
		clk.now = time.UnixMilli(int64(100 * (i/2 + 1)))
		if _, err := l.Append(Bytes{Meta: []byte("meta-"), Payload: []byte("load-")}, 0, 1); err != nil {
			t.Fatal(err)
		}
	}
	return l, clk
}

func TestTrimmable(t *testing.T) {
	l, _ := trimLedger(t, store.NewMemory())
	now := time.UnixMilli(1000)
	keepNothing := Retention{}
	forever := Retention{Time: -1, Size: -1}
	for _, c := range []struct {
		name    string
		slowest Position
		durable bool
		r       Retention
		want    []int64
	}{
		{"no durable cursor, keep nothing", Position{}, false, keepNothing, []int64{1, 2, 3}},
		{"cursor before everything", Earliest, true, keepNothing, []int64{}},
		{"cursor inside ledger 2", pos(2, 0), true, keepNothing, []int64{1}},
		{"cursor at the end of ledger 2", pos(2, 1), true, keepNothing, []int64{1, 2}},
		{"cursor at {3,-1}", pos(3, -1), true, keepNothing, []int64{1, 2}},
		{"infinite retention", pos(3, 1), true, forever, []int64{}},
		{"time: older than 750 ms", pos(3, 1), true, Retention{Time: 750 * time.Millisecond, Size: -1}, []int64{1, 2}},
		{"time: exactly 700 ms old stays", pos(3, 1), true, Retention{Time: 700 * time.Millisecond, Size: -1}, []int64{1, 2}},
		{"size: keep 20 bytes", pos(3, 1), true, Retention{Time: -1, Size: 20}, []int64{1, 2}},
		{"size: keep 21 bytes", pos(3, 1), true, Retention{Time: -1, Size: 21}, []int64{1}},
		{"either limit removes", pos(3, 1), true, Retention{Time: 850 * time.Millisecond, Size: 30}, []int64{1}},
	} {
		if got := ids(l.Trimmable(c.slowest, c.durable, c.r, now)); !slices.Equal(got, c.want) {
			t.Errorf("%s: Trimmable = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestTrimmableKeepsTheLedgerBeingWritten(t *testing.T) {
	clk := &clock{now: time.UnixMilli(100)}
	l := open(t, store.NewMemory(), Options{RolloverEntries: 3, Now: clk.Now})
	appendN(t, l, 4, nil) // 1:0 1:1 1:2 | 2:0
	now := time.UnixMilli(10_000)
	if got := ids(l.Trimmable(pos(2, 0), true, Retention{}, now)); !slices.Equal(got, []int64{1}) {
		t.Fatalf("Trimmable = %v, want [1]: ledger 2 still takes appends", got)
	}
	appendN(t, l, 2, nil) // ledger 2 is full now: Pulsar has closed it
	if got := ids(l.Trimmable(pos(2, 2), true, Retention{}, now)); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("Trimmable = %v, want [1 2]", got)
	}
}

func TestDeleteBefore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stub.db")
	st, err := store.OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := trimLedger(t, st)
	if err := l.DeleteBefore(3); err != nil {
		t.Fatal(err)
	}
	want := []Position{pos(3, 0), pos(3, 1)}
	if got := positions(l); !slices.Equal(got, want) || l.Len() != 2 || l.Size() != 20 {
		t.Fatalf("after DeleteBefore(3): %v, Len %d, Size %d", got, l.Len(), l.Size())
	}
	if next, ok := l.Next(Earliest); !ok || next != pos(3, 0) {
		t.Fatalf("Next(Earliest) = %s", next)
	}
	if _, ok := l.Get(pos(1, 0)); ok {
		t.Fatal("a removed entry is still there")
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = store.OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l = open(t, st, Options{RolloverEntries: 2})
	if got := positions(l); !slices.Equal(got, want) {
		t.Fatalf("reopened: %v, want %v", got, want)
	}
	p := appendN(t, l, 1, nil)[0]
	if p.Ledger <= 3 {
		t.Fatalf("append after reopen at %s reuses a ledger id", p)
	}
}

// noTrimStore hides the Trimmer of the store it wraps.
type noTrimStore struct{ store.Store }

func TestDeleteBeforeNeedsATrimmer(t *testing.T) {
	l, _ := trimLedger(t, noTrimStore{store.NewMemory()})
	if err := l.DeleteBefore(2); err == nil {
		t.Fatal("DeleteBefore succeeded on a store without Trimmer")
	}
	if l.Len() != 6 {
		t.Fatalf("Len = %d after a failed DeleteBefore", l.Len())
	}
}
