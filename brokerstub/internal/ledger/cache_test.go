package ledger

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
)

func openBolt(t *testing.T) store.Store {
	t.Helper()
	st, err := store.OpenBolt(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// payloadOf is the payload of entry i of a test: size bytes that say i.
func payloadOf(i, size int) []byte {
	return bytes.Repeat(fmt.Appendf(nil, "<%d>", i), size/len(fmt.Sprintf("<%d>", i))+1)[:size]
}

// checkAll reads every entry and compares it with payloadOf.
func checkAll(t *testing.T, l *Ledger, ps []Position, size int) {
	t.Helper()
	checkFrom(t, l, ps, 0, size)
}

// checkFrom is checkAll of the entries from index from on.
func checkFrom(t *testing.T, l *Ledger, ps []Position, from, size int) {
	t.Helper()
	for i := from; i < len(ps); i++ {
		p := ps[i]
		e, ok := l.Get(p)
		if !ok || !bytes.Equal(e.Payload, payloadOf(i, size)) || string(e.Meta) != fmt.Sprintf("meta-%d", i) {
			t.Fatalf("entry %d at %s: ok %v, %d bytes, meta %q", i, p, ok, len(e.Payload), e.Meta)
		}
	}
}

func appendSized(t *testing.T, l *Ledger, n, size int) []Position {
	t.Helper()
	var out []Position
	for i := range n {
		p, err := l.Append(Bytes{Meta: fmt.Appendf(nil, "meta-%d", i), Payload: payloadOf(i, size)}, uint64(i), 1)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// With a bbolt store and a Cache, the Ledgers sharing it keep no more
// entry bytes in slabs than the budget, and every entry still reads back
// whole from the store.
func TestCacheBoundsSlabsAndReadsBack(t *testing.T) {
	st := openBolt(t)
	const budget = 1 << 20
	c := NewCache(budget)
	l1, err := Open(st, "persistent://public/default/a", Options{Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	l2, err := Open(st, "persistent://public/default/b", Options{Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	ps1 := appendSized(t, l1, 100, 50_000) // 5 MB each
	ps2 := appendSized(t, l2, 100, 50_000)
	if s := c.Stats(); s.Size > budget || s.Evicted == 0 {
		t.Fatalf("cache %+v: over its budget of %d, or nothing evicted", s, budget)
	}
	checkAll(t, l1, ps1, 50_000)
	checkAll(t, l2, ps2, 50_000)
	if c.Stats().ReadBacks == 0 {
		t.Fatal("no entry was read back from the store")
	}
	// Reading back caches nothing: the slabs stay within the budget.
	if s := c.Stats(); s.Size > budget {
		t.Fatalf("after reads: cache %+v", s)
	}
	// A topic that goes gives its slabs back.
	l1.Close()
	l2.Close()
	if s := c.Stats(); s.Size != 0 {
		t.Fatalf("closed Ledgers still count %d bytes", s.Size)
	}
}

// The bytes of entries every durable subscription has acknowledged are
// dropped from memory (and read back if read again); the ledger being
// written is not trimmed, so only DropConsumed frees them.
func TestDropConsumedFreesAcknowledgedSlabs(t *testing.T) {
	st := openBolt(t)
	c := NewCache(1 << 30)
	l := open(t, st, Options{Cache: c})
	ps := appendSized(t, l, 200, 30_000)
	before := c.Stats().Size
	l.DropConsumed(ps[149])
	if after := c.Stats().Size; after >= before {
		t.Fatalf("cache %d -> %d bytes after three quarters of the entries were consumed", before, after)
	}
	for _, s := range l.slabs.slabs {
		if !ps[149].Less(s.last) && s.buf() != nil {
			t.Fatalf("slab of entries through %s kept after %s was consumed", s.last, ps[149])
		}
	}
	checkAll(t, l, ps, 30_000)
	// The slab being filled may go too: the next append starts a new one.
	l.DropConsumed(ps[199])
	more := appendSized(t, l, 1, 30_000)
	if e, ok := l.Get(more[0]); !ok || !bytes.Equal(e.Payload, payloadOf(0, 30_000)) {
		t.Fatal("append after everything was dropped")
	}
}

// Without a store that reads back, DropConsumed keeps everything: memory
// is the only place the bytes are.
func TestDropConsumedNeedsAStoreThatReadsBack(t *testing.T) {
	c := NewCache(1 << 10)
	l := open(t, &faultyStore{Store: store.NewMemory()}, Options{Cache: c})
	ps := appendSized(t, l, 50, 10_000)
	l.DropConsumed(ps[49])
	checkAll(t, l, ps, 10_000)
	if s := c.Stats(); s.Size != 0 || s.Evicted != 0 {
		t.Fatalf("a Ledger that cannot read back used the cache: %+v", s)
	}
}

// Trimming a ledger gives its slabs back to the cache.
func TestDeleteBeforeReleasesSlabs(t *testing.T) {
	st := openBolt(t)
	c := NewCache(1 << 30)
	l := open(t, st, Options{Cache: c, RolloverEntries: 10})
	ps := appendSized(t, l, 30, 20_000)
	before := c.Stats().Size
	if err := l.DeleteBefore(ps[20].Ledger); err != nil {
		t.Fatal(err)
	}
	if after := c.Stats().Size; after > before/2 {
		t.Fatalf("cache %d -> %d bytes after two of three ledgers were trimmed", before, after)
	}
	checkFrom(t, l, ps, 20, 20_000)
}

// A replay (topic load) keeps no more than the budget either.
func TestReplayWithinBudget(t *testing.T) {
	st := openBolt(t)
	l := open(t, st, Options{})
	ps := appendSized(t, l, 100, 40_000)
	c := NewCache(256 << 10)
	l2 := open(t, st, Options{Cache: c})
	if s := c.Stats(); s.Size > 256<<10 {
		t.Fatalf("replay: cache %+v", s)
	}
	checkAll(t, l2, ps, 40_000)
}

// Ledgers owned by different goroutines share a Cache: one's appends drop
// the other's slabs while it reads them (run with -race).
func TestCacheSharedAcrossGoroutines(t *testing.T) {
	st := openBolt(t)
	c := NewCache(256 << 10)
	done := make(chan error, 4)
	for k := range 4 {
		go func() {
			l, err := Open(st, fmt.Sprintf("persistent://public/default/g%d", k), Options{Cache: c})
			if err != nil {
				done <- err
				return
			}
			var ps []Position
			for i := range 60 {
				p, err := l.Append(Bytes{Meta: fmt.Appendf(nil, "meta-%d", i), Payload: payloadOf(i, 20_000)}, 0, 1)
				if err != nil {
					done <- err
					return
				}
				ps = append(ps, p)
				for j := max(i-5, 0); j <= i; j++ {
					if e, ok := l.Get(ps[j]); !ok || !bytes.Equal(e.Payload, payloadOf(j, 20_000)) {
						done <- fmt.Errorf("ledger %d: entry %d read wrong", k, j)
						return
					}
				}
			}
			l.Close()
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if s := c.Stats(); s.Size != 0 || s.Evicted == 0 {
		t.Fatalf("after every Ledger closed: %+v", s)
	}
}
