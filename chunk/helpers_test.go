package chunk

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/pulsargo/sdk/messageid"
)

// hdr returns a chunk header with the given fields.
func hdr(uuid string, chunkID, num, total int32) Header {
	return Header{UUID: uuid, ChunkID: chunkID, NumChunks: num, TotalSize: total}
}

// id returns the id of entry e of ledger 1.
func id(e int64) messageid.ID { return messageid.New(1, e, -1, 0, 0) }

// in returns an incoming chunk.
func in(uuid string, chunkID, num, total int32, payload []byte, entry int64) Incoming {
	return Incoming{Header: hdr(uuid, chunkID, num, total), Payload: payload, ID: id(entry)}
}

// incoming turns planned chunks into incoming chunks with ids firstEntry,
// firstEntry+1, ...
func incoming(t testing.TB, chunks []Chunk, firstEntry int64) []Incoming {
	t.Helper()
	out := make([]Incoming, len(chunks))
	for i, c := range chunks {
		out[i] = Incoming{Header: c.Header, Payload: c.Payload, ID: id(firstEntry + int64(i))}
	}
	return out
}

// split splits payload into chunks of chunkSize and fails the test on error.
func split(t testing.TB, producer string, seq uint64, payload []byte, chunkSize int) []Chunk {
	t.Helper()
	cs, err := Split(producer, seq, payload, chunkSize)
	if err != nil {
		t.Fatalf("Split: %v", err)
	}
	return cs
}

// pattern returns n bytes of a recognizable pattern.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) + seed
	}
	return b
}

// fakeClock is a settable clock.
type fakeClock struct{ t time.Time }

func newFakeClock() *fakeClock               { return &fakeClock{t: time.Unix(1_700_000_000, 0)} }
func (c *fakeClock) Now() time.Time          { return c.t }
func (c *fakeClock) Advance(d time.Duration) { c.t = c.t.Add(d) }

// add feeds in and expects neither a message, a discard nor an error.
func addQuiet(t *testing.T, a *Assembler, c Incoming) {
	t.Helper()
	msg, ds, err := a.Add(c)
	if msg != nil || len(ds) != 0 || err != nil {
		t.Fatalf("Add(%v chunk %d): msg=%v discarded=%v err=%v, want nothing", c.UUID, c.ChunkID, msg, ds, err)
	}
}

// wantRefused checks that err is an *Error wrapping want, with the given
// uuid and chunk ids, and that it is also the last discarded entry.
func wantRefused(t *testing.T, msg *Message, ds []Discarded, err error, want error, uuid string, ids ...messageid.ID) {
	t.Helper()
	if msg != nil {
		t.Fatalf("got message %q, want refusal", msg.UUID)
	}
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err %T is not *Error", err)
	}
	if e.UUID != uuid || !slices.Equal(e.ChunkIDs, ids) {
		t.Fatalf("Error{UUID:%q ChunkIDs:%v}, want {%q %v}", e.UUID, e.ChunkIDs, uuid, ids)
	}
	if len(ds) == 0 || ds[len(ds)-1].Reason != err {
		t.Fatalf("discarded %v does not end with the error", ds)
	}
	last := ds[len(ds)-1]
	if last.UUID != uuid || !slices.Equal(last.ChunkIDs, ids) {
		t.Fatalf("Discarded{UUID:%q ChunkIDs:%v}, want {%q %v}", last.UUID, last.ChunkIDs, uuid, ids)
	}
}

// wantDiscarded checks one Discarded entry.
func wantDiscarded(t *testing.T, d Discarded, want error, uuid string, ids ...messageid.ID) {
	t.Helper()
	if !errors.Is(d.Reason, want) {
		t.Fatalf("Reason = %v, want %v", d.Reason, want)
	}
	var e *Error
	if !errors.As(d.Reason, &e) || e.UUID != d.UUID || !slices.Equal(e.ChunkIDs, d.ChunkIDs) {
		t.Fatalf("Reason %#v does not match the Discarded", d.Reason)
	}
	if d.UUID != uuid || !slices.Equal(d.ChunkIDs, ids) {
		t.Fatalf("Discarded{UUID:%q ChunkIDs:%v}, want {%q %v}", d.UUID, d.ChunkIDs, uuid, ids)
	}
}

func wantPending(t *testing.T, a *Assembler, messages int, bytes int64) {
	t.Helper()
	if m, b := a.Pending(); m != messages || b != bytes {
		t.Fatalf("Pending() = %d, %d; want %d, %d", m, b, messages, bytes)
	}
}
