package wire

import (
	"bytes"
	"testing"

	"github.com/pulsargo/sdk/internal/proto"
)

func TestBufferPoolReusesReleasedFrames(t *testing.T) {
	payload := bytes.Repeat([]byte("x"), 200<<10)
	var stream []byte
	for i := 0; i < 4; i++ {
		var err error
		stream, err = AppendPayloadFrame(stream, newSendForTest(uint64(i)), testMeta(), payload)
		if err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(bytes.NewReader(stream), 0)
	pool := NewBufferPool()
	r.SetBufferPool(pool)
	f1, err := r.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f1.Payload, payload) {
		t.Fatal("payload differs")
	}
	first := &f1.buf[0]
	f1.Release()
	if f1.Payload != nil {
		t.Fatal("Release must drop the payload")
	}
	f2, err := r.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	if &f2.buf[0] != first {
		t.Fatal("released buffer was not reused")
	}
	if !bytes.Equal(f2.Payload, payload) || f2.Cmd.GetSend().GetSequenceId() != 1 {
		t.Fatal("reused buffer holds the wrong frame")
	}
	f2.Release()
	f2.Release() // idempotent
	allocs := testing.AllocsPerRun(1, func() {
		f, err := r.ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		f.Release()
	})
	if allocs > 20 {
		t.Fatalf("%v allocations per pooled frame", allocs)
	}
}

func TestBufferPoolIgnoresForeignBuffers(t *testing.T) {
	p := NewBufferPool()
	p.put(make([]byte, 100<<10)) // not a class capacity
	p.put(make([]byte, 10))      // too small
	if b := p.get(100 << 10); cap(b) != 128<<10+classSlack {
		t.Fatalf("cap %d", cap(b))
	}
	// A 1 MiB payload plus its headers stays in the 1 MiB class.
	if b := p.get(1<<20 + 2000); cap(b) != 1<<20+classSlack {
		t.Fatalf("cap %d for a 1 MiB chunk frame", cap(b))
	}
	var nilPool *BufferPool
	if b := nilPool.get(1 << 20); len(b) != 1<<20 {
		t.Fatal("nil pool must allocate")
	}
}

// newSendForTest builds a SEND command.
func newSendForTest(seq uint64) *proto.BaseCommand {
	pid := uint64(1)
	return &proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{ProducerId: &pid, SequenceId: &seq}}
}

func testMeta() *proto.MessageMetadata {
	name, seq, ts := "p", uint64(0), uint64(1)
	return &proto.MessageMetadata{ProducerName: &name, SequenceId: &seq, PublishTime: &ts}
}

func TestBufferPoolFromRecyclesSmallFramesAndMoveHandsOwnership(t *testing.T) {
	var stream []byte
	for i := 0; i < 3; i++ {
		var err error
		stream, err = AppendPayloadFrame(stream, newSendForTest(uint64(i)), testMeta(), []byte("small payload"))
		if err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(bytes.NewReader(stream), 0)
	r.SetBufferPool(NewBufferPoolFrom(0))
	f1, err := r.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	first := &f1.buf[0]
	moved := f1.Move()
	f1.Release() // moved away: must not give the buffer back
	f2, err := r.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	if &f2.buf[0] == first {
		t.Fatal("a moved frame's buffer was reused while its new owner holds it")
	}
	if string(moved.Payload) != "small payload" {
		t.Fatalf("moved payload %q", moved.Payload)
	}
	moved.Release()
	f3, err := r.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	if &f3.buf[0] != first {
		t.Fatal("a small frame's released buffer was not reused")
	}
}

// Keep gives up a buffer that fits its frame closely (the frame's bytes
// stay valid and the pool allocates anew), and refuses one with much room
// to spare (a 1.2 MiB frame in a 2 MiB class, 100 bytes in 16 KiB), which
// goes back to the pool on Release.
func TestKeepTakesOnlyCloseFittingBuffers(t *testing.T) {
	for _, tc := range []struct {
		size int
		kept bool
	}{{1 << 20, true}, {1<<20 + 200<<10, false}, {100, false}} { // 100 bytes: a 16 KiB buffer
		payload := bytes.Repeat([]byte("k"), tc.size)
		var stream []byte
		for i := range 2 {
			var err error
			if stream, err = AppendPayloadFrame(stream, newSendForTest(uint64(i)), testMeta(), payload); err != nil {
				t.Fatal(err)
			}
		}
		r := NewReader(bytes.NewReader(stream), 8<<20)
		r.SetBufferPool(NewBufferPoolFrom(0))
		f1, err := r.ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		first := &f1.buf[0]
		if got := f1.Keep(); got != tc.kept {
			t.Fatalf("%d bytes: Keep = %v, want %v", tc.size, got, tc.kept)
		}
		f1.Release()
		f2, err := r.ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		if reused := &f2.buf[0] == first; reused == tc.kept {
			t.Fatalf("%d bytes: kept %v, yet the next frame reused the buffer: %v", tc.size, tc.kept, reused)
		}
		if tc.kept && !bytes.Equal(f1.Payload, payload) {
			t.Fatalf("%d bytes: a kept frame's payload changed", tc.size)
		}
	}
}

// The buffer released last is the first taken again: a steady stream of
// frames cycles through the few buffers likeliest to be in a cache, not
// through every free one in turn. A class still keeps no more than its
// bound.
func TestBufferPoolTakesTheLastReleasedFirst(t *testing.T) {
	p := NewBufferPool()
	const n = 1 << 20
	bufs := make([][]byte, 4)
	for i := range bufs {
		bufs[i] = p.get(n)
	}
	for _, b := range bufs {
		p.put(b)
	}
	for i := len(bufs) - 1; i >= 0; i-- {
		b, ok := p.free(n)
		if !ok {
			t.Fatalf("buffer %d: pool empty", i)
		}
		if &b[:1][0] != &bufs[i][:1][0] {
			t.Fatalf("took buffer %d's turn with another: not the last released first", i)
		}
	}
	if _, ok := p.free(n); ok {
		t.Fatal("pool gave more buffers than it was given")
	}
	limit := max(minBuffersPerClass, bytesPerClass/classCap(class(n)))
	for range limit + 3 {
		p.put(make([]byte, 0, classCap(class(n))))
	}
	kept := 0
	for {
		if _, ok := p.free(n); !ok {
			break
		}
		kept++
	}
	if kept != limit {
		t.Fatalf("class kept %d free buffers, bound %d", kept, limit)
	}
}
