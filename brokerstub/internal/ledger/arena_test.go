package ledger

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
)

// adjacent reports whether b starts right where a's capacity ends, as
// successive copies in one slab do.
func adjacent(a, b []byte) bool {
	return uintptr(unsafe.Pointer(unsafe.SliceData(a)))+uintptr(cap(a)) == uintptr(unsafe.Pointer(unsafe.SliceData(b)))
}

// placed returns the payload arena.place kept for an entry at p.
func placed(a *arena, p Position, payload []byte, own Ownership) []byte {
	s, off := a.place(p, payload, own)
	if s == nil {
		return []byte{}
	}
	return s.buf()[off : off+len(payload) : off+len(payload)]
}

func TestArenaPacksEntriesOfOneLedgerAndNotAcrossLedgers(t *testing.T) {
	a := newArena(nil)
	p1 := placed(&a, pos(7, 0), []byte("payload-1"), Copied)
	p2 := placed(&a, pos(7, 1), []byte("payload-2"), Copied)
	if string(p1) != "payload-1" || string(p2) != "payload-2" {
		t.Fatalf("copies: %q %q", p1, p2)
	}
	if !adjacent(p1, p2) {
		t.Fatal("entries of one ledger are not packed in one slab")
	}
	p3 := placed(&a, pos(8, 0), []byte("p3"), Copied)
	if adjacent(p2, p3) {
		t.Fatal("an entry of the next ledger went into the previous ledger's slab")
	}
	if m := a.copyMeta([]byte("meta")); string(m) != "meta" || cap(m) != len(m) {
		t.Fatalf("meta copy %q cap %d", m, cap(m))
	}
}

func TestArenaSlabsGrowAndLargeEntriesGetTheirOwnBuffer(t *testing.T) {
	a := newArena(nil)
	entry := make([]byte, 1000)
	for i := range 20_000 { // about 20 MB
		placed(&a, pos(1, int64(i)), entry, Copied)
	}
	// 4 KiB, 8 KiB, ... 16 MiB, 32 MiB: a handful, not one per entry.
	if len(a.slabs) > 14 {
		t.Fatalf("%d slabs for 20,000 entries of 1,000 bytes", len(a.slabs))
	}
	big := bytes.Repeat([]byte{1}, OwnBufferAt)
	p := placed(&a, pos(1, 20_000), big, Copied)
	if cap(p) != len(big) || !bytes.Equal(p, big) {
		t.Fatalf("large entry: cap %d, len %d", cap(p), len(p))
	}
	if unsafe.SliceData(p) == unsafe.SliceData(big) {
		t.Fatal("a large entry that was not given kept the caller's buffer")
	}
	if s, _ := a.place(pos(1, 20_001), nil, Copied); s != nil {
		t.Fatal("an empty payload took a slab")
	}
}

// Slabs take at most about twice the bytes of their entries: a ledger's
// slabs double from a small first one, and the next ledger starts small
// again. (The arena once kept growing across ledgers, so that every topic
// held a 32 MiB slab for its newest ledger however little it held: a churn
// soak's stub took 4-5x its stored data.)
func TestArenaSlabsStayWithinTwiceTheirEntries(t *testing.T) {
	a := newArena(nil)
	entry := make([]byte, 3000)
	for i := range 10_000 { // 30 MB in ledger 1
		placed(&a, pos(1, int64(i)), entry, Copied)
	}
	placed(&a, pos(2, 0), entry, Copied) // one entry in ledger 2
	var slabs1, slabs2 int64
	for _, s := range a.slabs {
		if s.ledger == 1 {
			slabs1 += s.size
		} else {
			slabs2 += s.size
		}
	}
	if used := int64(10_000 * 3000); slabs1 > 2*used+firstSlab {
		t.Fatalf("ledger 1: slabs of %d bytes for %d bytes of entries", slabs1, used)
	}
	if slabs2 > 2*3000+firstSlab {
		t.Fatalf("ledger 2: slabs of %d bytes for one entry of 3,000 bytes", slabs2)
	}
}

func TestAppendAsyncKeepsACopy(t *testing.T) {
	st := store.NewMemory()
	l := open(t, st, Options{})
	meta, payload := []byte("meta"), []byte("payload")
	var got Pending
	l.AppendAsync(Bytes{Meta: meta, Payload: payload}, 1, 1, func(p Pending) { got = p })
	pos, err := l.Finish(got)
	if err != nil {
		t.Fatal(err)
	}
	copy(meta, "xxxx")
	copy(payload, "xxxxxxx")
	if e, _ := l.Get(pos); string(e.Meta) != "meta" || string(e.Payload) != "payload" {
		t.Fatalf("entry changed with the caller's buffers: %q %q", e.Meta, e.Payload)
	}
}

// A large entry whose bytes are Given keeps them (no copy); a small one is
// still copied into a slab, so that it does not pin its caller's buffer.
func TestArenaKeepsGivenLargeEntries(t *testing.T) {
	a := newArena(nil)
	frame := bytes.Repeat([]byte{2}, OwnBufferAt+100)
	payload := frame[20:]
	p := placed(&a, pos(1, 0), payload, Given)
	if unsafe.SliceData(p) != unsafe.SliceData(payload) {
		t.Fatal("a given large entry was copied")
	}
	if cap(p) != len(p) {
		t.Fatalf("cap(payload) %d: appending to it could overwrite what follows", cap(p))
	}
	small := []byte("small payload")
	p = placed(&a, pos(1, 1), small, Given)
	if unsafe.SliceData(p) == unsafe.SliceData(small) || string(p) != "small payload" {
		t.Fatal("a given small entry was not copied into a slab")
	}
}
