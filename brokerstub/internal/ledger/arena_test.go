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

func TestArenaPacksEntriesOfOneLedgerAndNotAcrossLedgers(t *testing.T) {
	var a arena
	m1, p1 := a.copyEntry(7, []byte("m1"), []byte("payload-1"), Copied)
	m2, p2 := a.copyEntry(7, []byte("m2"), []byte("payload-2"), Copied)
	if string(m1) != "m1" || string(p1) != "payload-1" || string(m2) != "m2" || string(p2) != "payload-2" {
		t.Fatalf("copies: %q %q %q %q", m1, p1, m2, p2)
	}
	if !adjacent(m1, p1) || !adjacent(p1, m2) {
		t.Fatal("entries of one ledger are not packed in one slab")
	}
	// Capacities end at the entry: appending to a stored slice can never
	// overwrite the next entry.
	if cap(m1) != len(m1) || cap(p1) != len(p1) {
		t.Fatalf("cap(meta) %d cap(payload) %d", cap(m1), cap(p1))
	}
	m3, _ := a.copyEntry(8, []byte("m3"), []byte("p3"), Copied)
	if adjacent(p2, m3) {
		t.Fatal("an entry of the next ledger went into the previous ledger's slab")
	}
}

func TestArenaSlabsGrowAndLargeEntriesGetTheirOwnBuffer(t *testing.T) {
	var a arena
	entry := make([]byte, 1000)
	slabs := 0
	var last []byte
	for range 20_000 { // about 20 MB
		_, p := a.copyEntry(1, nil, entry, Copied)
		if last == nil || !adjacent(last, p) {
			slabs++
		}
		last = p
	}
	// 64 KiB, 128 KiB, ... 4 MiB, then 4 MiB slabs: a handful, not one per entry.
	if slabs > 12 {
		t.Fatalf("%d slabs for 20,000 entries of 1,000 bytes", slabs)
	}
	big := bytes.Repeat([]byte{1}, OwnBufferAt)
	_, p := a.copyEntry(1, nil, big, Copied)
	if cap(p) != len(big) || !bytes.Equal(p, big) {
		t.Fatalf("large entry: cap %d, len %d", cap(p), len(p))
	}
	if unsafe.SliceData(p) == unsafe.SliceData(big) {
		t.Fatal("a large entry that was not given kept the caller's buffer")
	}
	if m, p := a.copyEntry(1, nil, nil, Copied); m == nil || p == nil || len(m)+len(p) != 0 {
		t.Fatalf("empty entry: %v %v", m, p)
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
	var a arena
	frame := bytes.Repeat([]byte{2}, OwnBufferAt+100)
	meta, payload := frame[10:20], frame[20:]
	m, p := a.copyEntry(1, meta, payload, Given)
	if unsafe.SliceData(m) != unsafe.SliceData(meta) || unsafe.SliceData(p) != unsafe.SliceData(payload) {
		t.Fatal("a given large entry was copied")
	}
	if cap(m) != len(m) || cap(p) != len(p) {
		t.Fatalf("cap(meta) %d cap(payload) %d: appending to them could overwrite what follows", cap(m), cap(p))
	}
	small := []byte("small payload")
	_, p = a.copyEntry(1, nil, small, Given)
	if unsafe.SliceData(p) == unsafe.SliceData(small) || string(p) != "small payload" {
		t.Fatal("a given small entry was not copied into a slab")
	}
}
