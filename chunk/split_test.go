package chunk

import (
	"bytes"
	"errors"
	"math"
	"runtime"
	"testing"
)

func TestNumChunks(t *testing.T) {
	for _, tc := range []struct{ n, size, want int }{
		{0, 10, 1}, {1, 10, 1}, {10, 10, 1}, {11, 10, 2}, {20, 10, 2}, {21, 10, 3},
		{64 << 20, 1 << 20, 64}, {64 << 20, 5 << 20, 13}, {5, 1, 5},
		{10, 0, 0}, {10, -1, 0}, {-1, 10, 0}, {math.MaxInt, math.MaxInt, 1}, {math.MaxInt, 1, math.MaxInt},
	} {
		if got := NumChunks(tc.n, tc.size); got != tc.want {
			t.Errorf("NumChunks(%d, %d) = %d, want %d", tc.n, tc.size, got, tc.want)
		}
	}
}

func TestSplit(t *testing.T) {
	payload := pattern(25, 1)
	cs := split(t, "prod", 42, payload, 10)
	if len(cs) != 3 {
		t.Fatalf("%d chunks, want 3", len(cs))
	}
	var joined []byte
	for i, c := range cs {
		if c.UUID != "prod-42" || c.ChunkID != int32(i) || c.NumChunks != 3 || c.TotalSize != 25 {
			t.Errorf("chunk %d = %+v", i, c)
		}
		if c.IsLast() != (i == 2) {
			t.Errorf("chunk %d IsLast = %v", i, c.IsLast())
		}
		// A sub-slice of the input, not a copy.
		if &c.Payload[0] != &payload[i*10] {
			t.Errorf("chunk %d payload is not a sub-slice of the input", i)
		}
		if cap(c.Payload) != len(c.Payload) {
			t.Errorf("chunk %d cap %d > len %d: appending would overwrite the next chunk", i, cap(c.Payload), len(c.Payload))
		}
		joined = append(joined, c.Payload...)
	}
	if len(cs[0].Payload) != 10 || len(cs[1].Payload) != 10 || len(cs[2].Payload) != 5 {
		t.Errorf("chunk sizes %d %d %d", len(cs[0].Payload), len(cs[1].Payload), len(cs[2].Payload))
	}
	if !bytes.Equal(joined, payload) {
		t.Error("chunks do not concatenate to the payload")
	}
}

func TestSplitExactMultiple(t *testing.T) {
	cs := split(t, "p", 0, pattern(30, 0), 10)
	if len(cs) != 3 {
		t.Fatalf("%d chunks, want 3 (no empty trailing chunk)", len(cs))
	}
	for i, c := range cs {
		if len(c.Payload) != 10 {
			t.Errorf("chunk %d has %d bytes", i, len(c.Payload))
		}
	}
}

func TestSplitEmptyPayload(t *testing.T) {
	for _, payload := range [][]byte{nil, {}} {
		cs := split(t, "p", 7, payload, 10)
		if len(cs) != 1 {
			t.Fatalf("%d chunks, want 1", len(cs))
		}
		c := cs[0]
		if c.UUID != "p-7" || c.ChunkID != 0 || c.NumChunks != 1 || c.TotalSize != 0 || len(c.Payload) != 0 || !c.IsLast() {
			t.Errorf("chunk = %+v", c)
		}
	}
}

func TestSplitFitsOneChunk(t *testing.T) {
	cs := split(t, "p", 1, pattern(10, 0), 10)
	if len(cs) != 1 || cs[0].NumChunks != 1 || len(cs[0].Payload) != 10 {
		t.Fatalf("chunks = %+v", cs)
	}
}

func TestSplitErrors(t *testing.T) {
	for _, size := range []int{0, -1, math.MinInt} {
		if _, err := Split("p", 1, pattern(10, 0), size); !errors.Is(err, ErrChunkSizeTooSmall) {
			t.Errorf("Split with chunk size %d: err = %v, want ErrChunkSizeTooSmall", size, err)
		}
	}
	// Without allocating 2 GiB: the length check NewPlan relies on.
	if _, err := planChunks(MaxTotalSize+1, 1<<20); !errors.Is(err, ErrPayloadTooLarge) {
		t.Errorf("planChunks(MaxTotalSize+1): err = %v, want ErrPayloadTooLarge", err)
	}
	if n, err := planChunks(MaxTotalSize, 1<<20); err != nil || n != 2048 {
		t.Errorf("planChunks(MaxTotalSize) = %d, %v", n, err)
	}
}

func TestPayloadSize(t *testing.T) {
	if n, err := PayloadSize(5<<20, 100); err != nil || n != 5<<20-100 {
		t.Errorf("PayloadSize = %d, %v", n, err)
	}
	if n, err := PayloadSize(101, 100); err != nil || n != 1 {
		t.Errorf("PayloadSize(101, 100) = %d, %v", n, err)
	}
	for _, tc := range []struct{ max, md int }{{100, 100}, {99, 100}, {0, 0}, {100, -1}} {
		_, err := PayloadSize(tc.max, tc.md)
		if !errors.Is(err, ErrChunkSizeTooSmall) {
			t.Errorf("PayloadSize(%d, %d): err = %v, want ErrChunkSizeTooSmall", tc.max, tc.md, err)
		}
	}
	// The chunk size smaller than the metadata overhead: a clear error.
	size := 20 + MetadataOverhead(UUID("p", 1)) // 20 bytes of other metadata
	_, err := PayloadSize(size, size)
	if !errors.Is(err, ErrChunkSizeTooSmall) || err.Error() == ErrChunkSizeTooSmall.Error() {
		t.Errorf("err = %v, want ErrChunkSizeTooSmall with details", err)
	}
}

func TestPlan(t *testing.T) {
	payload := pattern(25, 0)
	p, err := NewPlan("p", 9, payload, 10)
	if err != nil {
		t.Fatal(err)
	}
	if p.UUID() != "p-9" || p.Len() != 3 || p.TotalSize() != 25 {
		t.Errorf("plan: uuid %q len %d total %d", p.UUID(), p.Len(), p.TotalSize())
	}
	if c := p.Chunk(2); c.ChunkID != 2 || len(c.Payload) != 5 {
		t.Errorf("Chunk(2) = %+v", c)
	}
	for _, i := range []int{-1, 3} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Chunk(%d) did not panic", i)
				}
			}()
			p.Chunk(i)
		}()
	}
}

// TestSplitAllocation: splitting allocates the uuid and the chunk headers,
// nothing of the payload's size.
func TestSplitAllocation(t *testing.T) {
	payload := make([]byte, 64<<20)
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := Split("producer", 123456, payload, 1<<20); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2 {
		t.Errorf("Split allocates %v times per call, want <= 2 (uuid, headers)", allocs)
	}
	planAllocs := testing.AllocsPerRun(5, func() {
		p, _ := NewPlan("producer", 123456, payload, 1<<20)
		for i := range p.Len() {
			_ = p.Chunk(i)
		}
	})
	if planAllocs > 1 {
		t.Errorf("NewPlan+Chunk allocate %v times, want <= 1 (uuid)", planAllocs)
	}
	const runs = 10
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		if _, err := Split("producer", 123456, payload, 1<<20); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if perOp := (after.TotalAlloc - before.TotalAlloc) / runs; perOp > 16<<10 {
		t.Errorf("Split of 64 MiB allocates %d bytes per call, want < 16 KiB", perOp)
	}
}
