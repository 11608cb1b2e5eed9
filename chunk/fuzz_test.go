package chunk

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/pulsargo/sdk/messageid"
)

// Limits of the fuzzed Assembler: small, so that every limit is hit.
const (
	fuzzBudget     = 8 << 10
	fuzzMaxMessage = 4 << 10
	fuzzMaxPending = 4
)

var sentinels = []error{
	ErrInvalidChunk, ErrChunkIDOutOfRange, ErrUnknownMessage, ErrOutOfOrder, ErrSizeMismatch,
	ErrMismatch, ErrDuplicate, ErrSuperseded, ErrTooLarge, ErrOverBudget, ErrEvicted, ErrExpired, ErrReset,
}

// fuzzUUIDs are the uuids the fuzzer uses: more than fuzzMaxPending.
var fuzzUUIDs = [8]string{"u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7"}

// fuzzPayloads is where chunk payloads are cut from: pseudo-random bytes, so
// that chunks put in the wrong place or order show. Taking sub-slices keeps
// each fuzz run cheap.
var fuzzPayloads = func() []byte {
	b := make([]byte, 16<<10)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}()

// fuzzMaxInput bounds the fuzz input used (about 100 chunk events): longer
// inputs are cut, so that each run and, above all, the minimization of new
// inputs (quadratic in their length) stay fast.
const fuzzMaxInput = 256

// fuzzReader hands out the fuzz input; past the end it returns zeros.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) more() bool { return len(r.b) > 0 }
func (r *fuzzReader) u8() byte {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}
func (r *fuzzReader) u16() uint16 { return uint16(r.u8())<<8 | uint16(r.u8()) }

// producerState is an honest producer's message in progress, per uuid.
type producerState struct {
	total, chunkSize, num, next int
}

// fuzzStats counts what a fuzz run produced.
type fuzzStats struct {
	messages int
	reasons  map[error]int // by sentinel
}

// fuzzRun feeds the chunk sequence that data describes to an Assembler and
// checks its invariants after every step.
func fuzzRun(t *testing.T, data []byte) fuzzStats {
	clock := newFakeClock()
	a := NewAssembler(Options{
		MaxPendingMessages: fuzzMaxPending,
		MaxPendingBytes:    fuzzBudget,
		MaxMessageSize:     fuzzMaxMessage,
		ExpireAfter:        10 * time.Second,
		Now:                clock.Now,
	})
	r := &fuzzReader{b: data}
	fed := map[messageid.ID]Incoming{} // every chunk fed, by id
	reported := map[messageid.ID]bool{}
	var history []Incoming
	producers := map[string]*producerState{}
	var entry int64
	stats := fuzzStats{reasons: map[error]int{}}
	count := func(msg *Message, ds []Discarded) {
		if msg != nil {
			stats.messages++
		}
		for _, d := range ds {
			for _, s := range sentinels {
				if errors.Is(d.Reason, s) {
					stats.reasons[s]++
				}
			}
		}
	}

	payloadFor := func(e int64, n int) []byte {
		off := int(e*4099) % (len(fuzzPayloads) - n)
		return fuzzPayloads[off : off+n : off+n]
	}
	feed := func(c Incoming) {
		if old, ok := fed[c.ID]; ok && (!bytes.Equal(old.Payload, c.Payload) || old.Header != c.Header) {
			t.Fatalf("test bug: id %v fed as two chunks", c.ID)
		}
		fed[c.ID] = c
		history = append(history, c)
		msg, ds, err := a.Add(c)
		checkOutputs(t, fed, reported, msg, ds)
		count(msg, ds)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || len(ds) == 0 || ds[len(ds)-1].Reason != err {
				t.Fatalf("error %v is not an *Error ending the discarded list %v", err, ds)
			}
			if id := e.ChunkIDs[len(e.ChunkIDs)-1]; id != c.ID {
				t.Fatalf("refusal %v does not end with the refused chunk %v", err, c.ID)
			}
		}
	}
	fresh := func(uuid string, chunkID, num, total int32, n int) {
		entry++
		feed(in(uuid, chunkID, num, total, payloadFor(entry, n), entry))
	}

	for r.more() {
		op := r.u8()
		uuid := fuzzUUIDs[op>>4&7] // more uuids than MaxPendingMessages
		switch op % 8 {
		case 0: // an honest producer starts a message
			total := int(r.u16()) % (fuzzMaxMessage + 1<<10)
			chunkSize := 1 + int(r.u16())%(2<<10)
			ps := &producerState{total: total, chunkSize: chunkSize, num: NumChunks(total, chunkSize)}
			producers[uuid] = ps
			fallthrough
		case 1: // ... and sends its next chunk
			ps := producers[uuid]
			if ps == nil || ps.next >= ps.num {
				continue
			}
			lo := ps.next * ps.chunkSize
			n := min(ps.chunkSize, ps.total-lo)
			fresh(uuid, int32(ps.next), int32(ps.num), int32(ps.total), n)
			ps.next++
		case 2: // a chunk with arbitrary fields
			chunkID := int32(int8(r.u8()))
			num := int32(int8(r.u8()))
			total := int32(int16(r.u16()))
			fresh(uuid, chunkID, num, total, int(r.u8())%64)
		case 3: // a redelivery of an earlier chunk
			if len(history) > 0 {
				feed(history[int(r.u16())%len(history)])
			}
		case 4: // an honest producer skips or lies about a chunk size
			ps := producers[uuid]
			if ps == nil || ps.next >= ps.num {
				continue
			}
			d := int(int8(r.u8()))
			lo := ps.next * ps.chunkSize
			n := max(0, min(ps.chunkSize, ps.total-lo)+d)
			fresh(uuid, int32(ps.next+int(r.u8()%2)), int32(ps.num), int32(ps.total), n)
			ps.next++
		case 5:
			clock.Advance(time.Duration(r.u8()) * time.Second / 4)
		case 6:
			ds := a.Expire()
			checkOutputs(t, fed, reported, nil, ds)
			count(nil, ds)
		case 7:
			if r.u8()%8 == 0 {
				ds := a.Reset()
				checkOutputs(t, fed, reported, nil, ds)
				count(nil, ds)
			}
		}
		checkInvariants(t, a)
	}
	ds := a.Reset()
	checkOutputs(t, fed, reported, nil, ds)
	count(nil, ds)
	checkInvariants(t, a)
	// Every chunk fed was returned in a message or reported discarded.
	for id := range fed {
		if !reported[id] {
			t.Fatalf("chunk %v was fed but never returned nor reported", id)
		}
	}
	return stats
}

// checkOutputs checks a completed message and discarded reports against what
// was fed, and records the ids they return.
func checkOutputs(t *testing.T, fed map[messageid.ID]Incoming, reported map[messageid.ID]bool, msg *Message, ds []Discarded) {
	for _, d := range ds {
		var e *Error
		if !errors.As(d.Reason, &e) || e.UUID != d.UUID || len(e.ChunkIDs) != len(d.ChunkIDs) || len(d.ChunkIDs) == 0 {
			t.Fatalf("discarded %+v: bad reason", d)
		}
		known := false
		for _, s := range sentinels {
			known = known || errors.Is(e, s)
		}
		if !known {
			t.Fatalf("discarded %+v: reason is no sentinel", d)
		}
		for _, id := range d.ChunkIDs {
			if _, ok := fed[id]; !ok {
				t.Fatalf("discarded id %v was never fed", id)
			}
			reported[id] = true
		}
	}
	if msg == nil {
		return
	}
	if msg.ID.FirstChunkID() != msg.ChunkIDs[0] || msg.ID.LastChunkID() != msg.ChunkIDs[len(msg.ChunkIDs)-1] {
		t.Fatalf("message id %v, chunk ids %v", msg.ID, msg.ChunkIDs)
	}
	var want []byte
	for i, id := range msg.ChunkIDs {
		c, ok := fed[id]
		if !ok {
			t.Fatalf("message chunk id %v was never fed", id)
		}
		// Every chunk's header agrees with the message it is part of.
		if h := c.Header; h.UUID != msg.UUID || int(h.ChunkID) != i || int(h.NumChunks) != len(msg.ChunkIDs) ||
			int(h.TotalSize) != len(msg.Payload) || cap(msg.Payload) != len(msg.Payload) {
			t.Fatalf("chunk %d of message %q (%d chunks, %d bytes, cap %d) has header %+v",
				i, msg.UUID, len(msg.ChunkIDs), len(msg.Payload), cap(msg.Payload), h)
		}
		want = append(want, c.Payload...)
		reported[id] = true
	}
	if !bytes.Equal(msg.Payload, want) {
		t.Fatal("message payload is not the concatenation of its chunks")
	}
}

// checkInvariants checks the Assembler's internal state: limits respected,
// the arrival list and the map agree, reservations add up.
func checkInvariants(t *testing.T, a *Assembler) {
	n, reserved := a.Pending()
	if reserved > a.opts.MaxPendingBytes || reserved < 0 || n > a.opts.MaxPendingMessages {
		t.Fatalf("Pending() = %d, %d over limits", n, reserved)
	}
	var count int
	var sum int64
	var prev *pending
	for p := a.q.head; p != nil; p = p.next {
		if p.prev != prev || a.q.byUUID[p.uuid] != p {
			t.Fatal("arrival list and map disagree")
		}
		if int64(len(p.buf)) != p.total || p.written > len(p.buf) || len(p.ids) >= int(p.num) || len(p.ids) == 0 {
			t.Fatalf("pending %q: buf %d total %d written %d ids %d num %d", p.uuid, len(p.buf), p.total, p.written, len(p.ids), p.num)
		}
		count++
		sum += int64(len(p.buf))
		prev = p
	}
	if prev != a.q.tail || count != n || sum != reserved {
		t.Fatalf("list of %d messages, %d bytes; Pending() = %d, %d", count, sum, n, reserved)
	}
}

// fuzzSeeds are inputs of honest messages, interleaved; redeliveries; lies;
// expiry; reset.
func fuzzSeeds() [][]byte {
	honest := func(uuidOp byte, total, chunkSize uint16) []byte {
		b := []byte{uuidOp << 4} // op 0: start a message
		b = binary.BigEndian.AppendUint16(b, total)
		return binary.BigEndian.AppendUint16(b, chunkSize)
	}
	next := func(u byte) []byte { return []byte{u<<4 | 1} }
	var seeds [][]byte
	var seed []byte
	seed = append(seed, honest(0, 3000, 700)...)
	seed = append(seed, honest(1, 1500, 400)...)
	for range 5 {
		seed = append(seed, next(0)...)
		seed = append(seed, next(1)...)
	}
	seeds = append(seeds, seed,
		append(append(honest(2, 2000, 99), next(2)...), 3, 0, 0, 3, 0, 1, 2<<4|1, 2<<4|4, 5, 0),
		[]byte{2, 0, 3, 0, 10, 7, 2, 1, 3, 0, 10, 7, 2, 2, 3, 0, 10, 7},
		append(honest(3, 3000, 500), 5, 50, 6, 3<<4|1, 7, 0),
		append(honest(0, 0, 1), honest(0, 1, 1)...),
		slices.Concat(honest(0, 100, 10), honest(1, 100, 10), honest(2, 100, 10), honest(3, 100, 10),
			honest(4, 100, 10), honest(5, 100, 10), next(5), next(0)), // count eviction
		slices.Concat(honest(0, 3000, 1000), honest(1, 3000, 1000), honest(2, 3000, 1000), next(2)), // byte eviction
		slices.Concat(honest(0, 4500, 1000), []byte{1<<4 | 2, 0, 2, 0x7f, 0xff, 10}),                // too large
	)
	return seeds
}

// TestFuzzSeeds checks that the seeds exercise completions and refusals.
func TestFuzzSeeds(t *testing.T) {
	var total fuzzStats
	total.reasons = map[error]int{}
	for i, seed := range fuzzSeeds() {
		s := fuzzRun(t, seed)
		t.Logf("seed %d: %d messages, discards %v", i, s.messages, s.reasons)
		total.messages += s.messages
		for k, v := range s.reasons {
			total.reasons[k] += v
		}
	}
	if total.messages < 3 || len(total.reasons) < 3 {
		t.Errorf("seeds produce %d messages and %d kinds of discard", total.messages, len(total.reasons))
	}
}

func FuzzAssembler(f *testing.F) {
	for _, seed := range fuzzSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > fuzzMaxInput {
			data = data[:fuzzMaxInput]
		}
		fuzzRun(t, data)
	})
}
