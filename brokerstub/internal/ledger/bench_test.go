package ledger

import (
	"path/filepath"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
)

func benchmarkAppend(b *testing.B, st store.Store) {
	l := open(b, st, Options{})
	meta, payload := make([]byte, 64), make([]byte, 1024)
	b.SetBytes(int64(len(meta) + len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.Append(Bytes{Meta: meta, Payload: payload}, 1, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppend appends 1 KiB entries into the memory store.
func BenchmarkAppend(b *testing.B) { benchmarkAppend(b, store.NewMemory()) }

// BenchmarkAppendBolt appends 1 KiB entries into a bbolt store: one fsync each.
func BenchmarkAppendBolt(b *testing.B) {
	st, err := store.OpenBolt(filepath.Join(b.TempDir(), "stub.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	benchmarkAppend(b, st)
}

// filled returns a ledger of 100,000 entries in ledgers of 1,000.
func filled(b *testing.B) *Ledger {
	l := open(b, store.NewMemory(), Options{RolloverEntries: 1000})
	for range 100_000 {
		if _, err := l.Append(Bytes{}, 1, 1); err != nil {
			b.Fatal(err)
		}
	}
	return l
}

func BenchmarkNext(b *testing.B) {
	l := filled(b)
	p := Earliest
	b.ReportAllocs()
	for b.Loop() {
		next, ok := l.Next(p)
		if !ok {
			next, _ = l.First()
		}
		p = next
	}
}

func BenchmarkGet(b *testing.B) {
	l := filled(b)
	all := positions(l)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, ok := l.Get(all[i%len(all)]); !ok {
			b.Fatal("missing entry")
		}
		i += 7919
	}
}
