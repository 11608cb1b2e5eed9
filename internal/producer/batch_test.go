package producer

import (
	"testing"
	"unsafe"
)

// A burst of receipts frees the buffers of a whole pending window at once:
// the producer keeps them all for the batches that follow, rather than 4
// of them (W1 allocated 128 KiB anew for 80% of its batches), and their
// message lists too, rather than 32 of them.
func TestBatchBuffersOfAWholeWindowAreReused(t *testing.T) {
	bs := batches{bufs: &Buffers{}, window: 10_000, spare: &spareMsgs{}}
	const full = 128 // messages in a full batch
	var inFlight []*batch
	for range bs.window / full {
		b := bs.start("")
		b.buf = append(b.buf, make([]byte, 128<<10)...)
		b.msgs = append(b.msgs, make([]pending, full)...)
		bs.detach(b)
		inFlight = append(inFlight, b)
	}
	for _, b := range inFlight { // the receipts, in one burst
		bs.recycle(b.buf)
		bs.recycleMsgs(b.msgs)
	}
	if len(bs.bufs.free) != len(inFlight) {
		t.Fatalf("kept %d of %d batch buffers", len(bs.bufs.free), len(inFlight))
	}
	reused, reusedMsgs := map[*byte]bool{}, map[*pending]bool{}
	for _, b := range inFlight {
		reused[unsafe.SliceData(b.buf)] = true
		reusedMsgs[unsafe.SliceData(b.msgs)] = true
	}
	for i := range inFlight {
		b := bs.start("")
		if !reused[unsafe.SliceData(b.buf[:1])] {
			t.Fatalf("batch %d got a new buffer", i)
		}
		if !reusedMsgs[unsafe.SliceData(b.msgs[:1])] || len(b.msgs) != 0 {
			t.Fatalf("batch %d: a new message list, or one not emptied (len %d)", i, len(b.msgs))
		}
		bs.detach(b)
	}
}

// The partitions of one producer share their batch buffers: a batch
// finished on one partition gives its buffer to the next batch opened on
// another, and that partition's first batch starts at the size batches
// reached elsewhere instead of growing by doubling from nothing (W6: 1,000
// partitions spent a quarter of the send CPU in growslice).
func TestBatchBuffersAreSharedAcrossPartitions(t *testing.T) {
	shared := &Buffers{}
	a := batches{bufs: shared, window: 1000}
	b := batches{bufs: shared, window: 1000}
	x := a.start("")
	x.buf = append(x.buf, make([]byte, 100<<10)...)
	x.msgs = append(x.msgs, make([]pending, 100)...)
	a.detach(x)
	y := b.start("")
	if cap(y.buf) < 100<<10 {
		t.Fatalf("another partition's first batch buffer has capacity %d, want at least %d", cap(y.buf), 100<<10)
	}
	y.msgs = append(y.msgs, make([]pending, 100)...)
	b.detach(y)
	a.recycle(x.buf)
	z := b.start("")
	if unsafe.SliceData(z.buf[:1]) != unsafe.SliceData(x.buf[:1]) {
		t.Fatal("a buffer freed on one partition was not reused by another")
	}
	// Partitions keep one window's buffers between them, not one each.
	for range 100 {
		a.recycle(make([]byte, 0, 100<<10))
		b.recycle(make([]byte, 0, 100<<10))
	}
	if n, limit := len(shared.free), a.maxSpare(); n > limit {
		t.Fatalf("kept %d buffers, more than one window's %d", n, limit)
	}
}

// Full batches end a few bytes apart (wherever their last message did not
// fit): each one a little larger than any before must not make the kept
// buffers too small to reuse. W1 allocated some 140 buffers of 128 KiB per
// producer for a window of 82 while the hint crept up byte by byte.
func TestBatchBuffersSurviveBatchesOfSlightlyDifferentSizes(t *testing.T) {
	bs := batches{bufs: &Buffers{}, window: 10_000, spare: &spareMsgs{}}
	const full = 123
	allocated := 0
	seen := map[*byte]bool{}
	var inFlight []*batch
	for i := range 400 {
		b := bs.start("")
		if p := unsafe.SliceData(b.buf[:cap(b.buf)]); cap(b.buf) > 0 && !seen[p] {
			seen[p] = true
			allocated++
		}
		size := 120<<10 + i*8 // each full batch a few bytes larger than the last
		if cap(b.buf) < size {
			if cap(b.buf) == 0 {
				allocated++ // the first buffer, grown from nothing
			}
			b.buf = make([]byte, 0, size) // as append would grow it
			seen[unsafe.SliceData(b.buf[:1])] = true
		}
		b.buf = b.buf[:size]
		b.msgs = append(b.msgs, make([]pending, full)...)
		bs.detach(b)
		inFlight = append(inFlight, b)
		if len(inFlight) == 80 { // a window's receipts
			for _, b := range inFlight {
				bs.recycle(b.buf)
				bs.recycleMsgs(b.msgs)
			}
			inFlight = inFlight[:0]
		}
	}
	if allocated > 120 {
		t.Fatalf("%d batch buffers allocated for 400 batches with 80 in flight, want about 80", allocated)
	}
}
