package chunk

import (
	"bytes"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/messageid"
)

func TestDuplicateRedeliveryIgnored(t *testing.T) {
	payload := pattern(30, 5)
	cs := incoming(t, split(t, "p", 1, payload, 10), 1)
	a := NewAssembler(Options{})
	addQuiet(t, a, cs[0])
	addQuiet(t, a, cs[1])
	// Redelivery from the start (same message ids): ignored, idempotently.
	for range 2 {
		addQuiet(t, a, cs[0])
		addQuiet(t, a, cs[1])
		wantPending(t, a, 1, 30)
	}
	msg, ds, err := a.Add(cs[2])
	if msg == nil || ds != nil || err != nil {
		t.Fatalf("msg=%v ds=%v err=%v", msg, ds, err)
	}
	if !bytes.Equal(msg.Payload, payload) || !slices.Equal(msg.ChunkIDs, []messageid.ID{id(1), id(2), id(3)}) {
		t.Errorf("payload ok=%v ids=%v", bytes.Equal(msg.Payload, payload), msg.ChunkIDs)
	}
}

func TestDuplicateOtherIDReported(t *testing.T) {
	// A second stored copy of chunk 1 (e.g. a producer resend): it is
	// ignored, and reported alone so the caller can acknowledge it.
	a := NewAssembler(Options{})
	addQuiet(t, a, in("p", 0, 3, 3, []byte{1}, 1))
	addQuiet(t, a, in("p", 1, 3, 3, []byte{2}, 2))
	msg, ds, err := a.Add(in("p", 1, 3, 3, []byte{9}, 3))
	if msg != nil || err != nil || len(ds) != 1 {
		t.Fatalf("msg=%v ds=%v err=%v", msg, ds, err)
	}
	wantDiscarded(t, ds[0], ErrDuplicate, "p", id(3))
	wantPending(t, a, 1, 3)
	msg, _, err = a.Add(in("p", 2, 3, 3, []byte{3}, 4))
	if msg == nil || err != nil || !bytes.Equal(msg.Payload, []byte{1, 2, 3}) {
		t.Fatalf("msg=%v err=%v", msg, err)
	}
	if !slices.Equal(msg.ChunkIDs, []messageid.ID{id(1), id(2), id(4)}) {
		t.Errorf("ChunkIDs = %v", msg.ChunkIDs)
	}
}

func TestChunkZeroSupersedes(t *testing.T) {
	// Chunk 0 stored twice (different ids): the first copy's chunks are
	// discarded, the message restarts from the new chunk 0.
	a := NewAssembler(Options{})
	addQuiet(t, a, in("p", 0, 3, 3, []byte{1}, 1))
	addQuiet(t, a, in("p", 1, 3, 3, []byte{2}, 2))
	msg, ds, err := a.Add(in("p", 0, 3, 3, []byte{4}, 3))
	if msg != nil || err != nil || len(ds) != 1 {
		t.Fatalf("msg=%v ds=%v err=%v", msg, ds, err)
	}
	wantDiscarded(t, ds[0], ErrSuperseded, "p", id(1), id(2))
	wantPending(t, a, 1, 3)
	addQuiet(t, a, in("p", 1, 3, 3, []byte{5}, 4))
	msg, _, _ = a.Add(in("p", 2, 3, 3, []byte{6}, 5))
	if msg == nil || !bytes.Equal(msg.Payload, []byte{4, 5, 6}) || msg.ID.FirstChunkID() != id(3) {
		t.Fatalf("msg=%+v", msg)
	}
}

func TestOutOfOrder(t *testing.T) {
	a := NewAssembler(Options{})
	addQuiet(t, a, in("p", 0, 4, 4, []byte{1}, 1))
	addQuiet(t, a, in("p", 1, 4, 4, []byte{1}, 2))
	msg, ds, err := a.Add(in("p", 3, 4, 4, []byte{1}, 3))
	wantRefused(t, msg, ds, err, ErrOutOfOrder, "p", id(1), id(2), id(3))
	wantPending(t, a, 0, 0)
	// The rest of the message is now unknown.
	msg, ds, err = a.Add(in("p", 2, 4, 4, []byte{1}, 4))
	wantRefused(t, msg, ds, err, ErrUnknownMessage, "p", id(4))
}

func TestChunkIDOutOfRange(t *testing.T) {
	for _, chunkID := range []int32{3, 4, 1 << 30, -1} {
		a := NewAssembler(Options{})
		addQuiet(t, a, in("p", 0, 3, 3, []byte{1}, 1))
		msg, ds, err := a.Add(in("p", chunkID, 3, 3, []byte{1}, 2))
		wantRefused(t, msg, ds, err, ErrChunkIDOutOfRange, "p", id(1), id(2))
		wantPending(t, a, 0, 0)
		// Without a pending message: just the chunk.
		msg, ds, err = a.Add(in("q", chunkID, 3, 3, []byte{1}, 3))
		wantRefused(t, msg, ds, err, ErrChunkIDOutOfRange, "q", id(3))
	}
}

func TestSizeOverrun(t *testing.T) {
	a := NewAssembler(Options{})
	addQuiet(t, a, in("p", 0, 3, 10, make([]byte, 4), 1))
	msg, ds, err := a.Add(in("p", 1, 3, 10, make([]byte, 7), 2)) // 11 > 10 before the last chunk
	wantRefused(t, msg, ds, err, ErrSizeMismatch, "p", id(1), id(2))
	wantPending(t, a, 0, 0)

	addQuiet(t, a, in("p", 0, 2, 10, make([]byte, 4), 3))
	msg, ds, err = a.Add(in("p", 1, 2, 10, make([]byte, 7), 4)) // last chunk overruns
	wantRefused(t, msg, ds, err, ErrSizeMismatch, "p", id(3), id(4))
	wantPending(t, a, 0, 0)
}

func TestSizeUnderrun(t *testing.T) {
	a := NewAssembler(Options{})
	addQuiet(t, a, in("p", 0, 2, 10, make([]byte, 4), 1))
	msg, ds, err := a.Add(in("p", 1, 2, 10, make([]byte, 5), 2))
	wantRefused(t, msg, ds, err, ErrSizeMismatch, "p", id(1), id(2))
	wantPending(t, a, 0, 0)
	// A one-chunk message must be exactly its total.
	msg, ds, err = a.Add(in("q", 0, 1, 10, make([]byte, 9), 3))
	wantRefused(t, msg, ds, err, ErrSizeMismatch, "q", id(3))
	msg, ds, err = a.Add(in("q", 0, 1, 10, make([]byte, 11), 4))
	wantRefused(t, msg, ds, err, ErrSizeMismatch, "q", id(4))
}

func TestChunkZeroOverrunRefusedBeforeAllocating(t *testing.T) {
	a := NewAssembler(Options{})
	big := make([]byte, 1<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	msg, ds, err := a.Add(in("p", 0, 2, 1000, big, 1))
	runtime.ReadMemStats(&after)
	wantRefused(t, msg, ds, err, ErrSizeMismatch, "p", id(1))
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("refusing allocated %d bytes", n)
	}
	wantPending(t, a, 0, 0)
}

func TestUUIDReusedWithDifferentTotals(t *testing.T) {
	// A later chunk with other totals: message and chunk are dropped.
	for _, c := range []Incoming{
		in("p", 1, 4, 4, []byte{1}, 2), // other chunk count
		in("p", 1, 3, 5, []byte{1}, 2), // other total size
	} {
		a := NewAssembler(Options{})
		addQuiet(t, a, in("p", 0, 3, 3, []byte{1}, 1))
		msg, ds, err := a.Add(c)
		wantRefused(t, msg, ds, err, ErrMismatch, "p", id(1), id(2))
		wantPending(t, a, 0, 0)
	}
	// A chunk 0 with other totals: the pending message is dropped and a
	// new one starts.
	a := NewAssembler(Options{})
	addQuiet(t, a, in("p", 0, 3, 3, []byte{1}, 1))
	addQuiet(t, a, in("p", 1, 3, 3, []byte{1}, 2))
	msg, ds, err := a.Add(in("p", 0, 2, 4, []byte{7, 7}, 3))
	if msg != nil || err != nil || len(ds) != 1 {
		t.Fatalf("msg=%v ds=%v err=%v", msg, ds, err)
	}
	wantDiscarded(t, ds[0], ErrMismatch, "p", id(1), id(2))
	wantPending(t, a, 1, 4)
	msg, _, _ = a.Add(in("p", 1, 2, 4, []byte{8, 8}, 4))
	if msg == nil || !bytes.Equal(msg.Payload, []byte{7, 7, 8, 8}) {
		t.Fatalf("msg=%+v", msg)
	}
	// A chunk 0 with other totals that is itself refused: both reported.
	addQuiet(t, a, in("p", 0, 3, 3, []byte{1}, 5))
	msg, ds, err = a.Add(in("p", 0, 2, 1<<30, []byte{1}, 6))
	if len(ds) != 2 {
		t.Fatalf("ds=%v", ds)
	}
	wantDiscarded(t, ds[0], ErrMismatch, "p", id(5))
	wantRefused(t, msg, ds, err, ErrTooLarge, "p", id(6))
	wantPending(t, a, 0, 0)
}

func TestUnknownMessage(t *testing.T) {
	a := NewAssembler(Options{})
	msg, ds, err := a.Add(in("p", 1, 3, 3, []byte{1}, 7))
	wantRefused(t, msg, ds, err, ErrUnknownMessage, "p", id(7))
	wantPending(t, a, 0, 0)
}

func TestInvalidMetadata(t *testing.T) {
	cases := map[string]Incoming{
		"zero header":           {ID: id(2)},
		"empty uuid":            in("", 0, 2, 2, []byte{1}, 2),
		"uuid only":             {Header: Header{UUID: "p"}, Payload: []byte{1}, ID: id(2)},
		"zero chunks":           in("p", 0, 0, 2, []byte{1}, 2),
		"negative chunks":       in("p", 0, -5, 2, []byte{1}, 2),
		"negative total":        in("p", 0, 2, -1, nil, 2),
		"more chunks than size": in("p", 0, 3, 2, []byte{1}, 2),
		"huge chunk count":      in("p", 0, 1<<31-1, 10, []byte{1}, 2),
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			a := NewAssembler(Options{})
			msg, ds, err := a.Add(c)
			wantRefused(t, msg, ds, err, ErrInvalidChunk, c.UUID, id(2))
			wantPending(t, a, 0, 0)
		})
	}
	// Bad metadata naming a pending message discards it too.
	a := NewAssembler(Options{})
	addQuiet(t, a, in("p", 0, 2, 2, []byte{1}, 1))
	msg, ds, err := a.Add(in("p", 1, 0, 2, []byte{1}, 2))
	wantRefused(t, msg, ds, err, ErrInvalidChunk, "p", id(1), id(2))
	wantPending(t, a, 0, 0)
}

func TestZeroValuesDoNotPanic(t *testing.T) {
	var a Assembler // the zero Assembler works, with the defaults
	_, _, err := a.Add(Incoming{})
	if !errors.Is(err, ErrInvalidChunk) {
		t.Fatalf("err = %v", err)
	}
	addQuiet(t, &a, in("p", 0, 2, 2, []byte{1}, 1))
	if msg, _, _ := a.Add(in("p", 1, 2, 2, []byte{2}, 2)); msg == nil || !bytes.Equal(msg.Payload, []byte{1, 2}) {
		t.Fatalf("zero Assembler: msg=%v", msg)
	}
	if _, _, err := NewAssembler(Options{}).Add(Incoming{Payload: []byte{1}}); !errors.Is(err, ErrInvalidChunk) {
		t.Fatalf("err = %v", err)
	}
}

func TestErrorText(t *testing.T) {
	a := NewAssembler(Options{})
	addQuiet(t, a, in("p-1", 0, 4, 4, []byte{1}, 1))
	_, _, err := a.Add(in("p-1", 2, 4, 4, []byte{1}, 2))
	var e *Error
	if !errors.As(err, &e) || e.Err != ErrOutOfOrder {
		t.Fatalf("err = %#v", err)
	}
	text := err.Error()
	for _, want := range []string{ErrOutOfOrder.Error(), `"p-1"`, "got chunk 2, want chunk 1", "2 chunk ids"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q does not contain %q", text, want)
		}
	}
	if errors.Unwrap(err) != ErrOutOfOrder {
		t.Error("Unwrap")
	}
}
