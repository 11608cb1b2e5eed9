package producer

import (
	"testing"
	"unsafe"
)

// A burst of receipts frees the buffers of a whole pending window at once:
// the producer keeps them all for the batches that follow, rather than 4
// of them (W1 allocated 128 KiB anew for 80% of its batches).
func TestBatchBuffersOfAWholeWindowAreReused(t *testing.T) {
	bs := batches{window: 10_000, spareMsgs: make(chan []pending, maxSpareMsgs)}
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
	if len(bs.spare) != len(inFlight) {
		t.Fatalf("kept %d of %d batch buffers", len(bs.spare), len(inFlight))
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
		if i < maxSpareMsgs && (!reusedMsgs[unsafe.SliceData(b.msgs[:1])] || len(b.msgs) != 0) {
			t.Fatalf("batch %d: a new message list, or one not emptied (len %d)", i, len(b.msgs))
		}
		bs.detach(b)
	}
}
