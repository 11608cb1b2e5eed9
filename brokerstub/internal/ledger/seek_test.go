package ledger

import (
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
)

// timedLedger returns a ledger with one entry per publish time, rolling over
// every 3 entries.
func timedLedger(t *testing.T, times ...uint64) *Ledger {
	t.Helper()
	l := open(t, store.NewMemory(), Options{RolloverEntries: 3})
	appendN(t, l, len(times), func(i int) uint64 { return times[i] })
	return l
}

func TestFindByPublishTime(t *testing.T) {
	// 1:0=10 1:1=20 1:2=20 | 2:0=30
	l := timedLedger(t, 10, 20, 20, 30)
	for _, c := range []struct {
		ts   uint64
		want Position
	}{
		{0, pos(1, 0)},  // nothing older: first position
		{10, pos(1, 0)}, // nothing strictly older
		{11, pos(1, 1)},
		{20, pos(1, 1)}, // equal times are not older
		{21, pos(2, 0)}, // after 1:2, across the rollover
		{30, pos(2, 0)},
		{31, pos(2, 1)}, // after the last entry
		{^uint64(0), pos(2, 1)},
	} {
		if got := l.FindByPublishTime(c.ts); got != c.want {
			t.Errorf("FindByPublishTime(%d) = %s, want %s", c.ts, got, c.want)
		}
	}
}

func TestFindByPublishTimeNotMonotonic(t *testing.T) {
	// Two producers with skewed clocks: 1:0=50 1:1=10 1:2=40 | 2:0=35
	l := timedLedger(t, 50, 10, 40, 35)
	for _, c := range []struct {
		ts   uint64
		want Position
	}{
		{10, pos(1, 0)},
		{11, pos(1, 2)}, // the newest entry older than 11 is 1:1
		{36, pos(2, 1)}, // the newest entry older than 36 is the last one
		{35, pos(1, 2)}, // ... older than 35 is 1:1 (40 and 35 are not)
		{51, pos(2, 1)},
	} {
		if got := l.FindByPublishTime(c.ts); got != c.want {
			t.Errorf("FindByPublishTime(%d) = %s, want %s", c.ts, got, c.want)
		}
	}
}

func TestFindByPublishTimeEmptyLedgers(t *testing.T) {
	l := open(t, store.NewMemory(), Options{})
	if got := l.FindByPublishTime(100); got != Earliest {
		t.Errorf("on an empty topic: %s, want Earliest", got)
	}

	// After a restart the current ledger is empty: "after the last entry"
	// stays in the last ledger that has entries, and is before anything
	// appended later.
	st := store.NewMemory()
	appendN(t, open(t, st, Options{}), 2, func(i int) uint64 { return uint64(10 * (i + 1)) })
	l = open(t, st, Options{})
	after := l.FindByPublishTime(25)
	if after != pos(1, 2) {
		t.Fatalf("FindByPublishTime(25) = %s, want 1:2", after)
	}
	p := appendN(t, l, 1, nil)[0]
	if !after.Less(p) {
		t.Fatalf("a later append at %s is not after %s", p, after)
	}
	if next, ok := l.Next(after); !ok || next != p {
		t.Fatalf("Next(%s) = %s, %v; want %s", after, next, ok, p)
	}
}

func TestFindByTimeBrokerTimestamp(t *testing.T) {
	clk := &clock{}
	l := open(t, store.NewMemory(), Options{Now: clk.Now})
	for i, ms := range []int64{100, 200, 300} {
		clk.now = time.UnixMilli(ms)
		if _, err := l.Append(Bytes{}, uint64(1000-i), 1); err != nil {
			t.Fatal(err)
		}
	}
	byBroker := func(e Entry) uint64 { return e.BrokerTimestamp }
	if got := l.FindByTime(250, byBroker); got != pos(1, 2) {
		t.Errorf("FindByTime(250, broker) = %s, want 1:2", got)
	}
	if got := l.FindByPublishTime(999); got != pos(1, 3) {
		t.Errorf("FindByPublishTime(999) = %s, want 1:3", got)
	}
}
