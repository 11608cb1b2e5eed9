package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A frame's buffer grows with the bytes that arrive: the size of a 5 MiB
// frame and two bytes of it cost nothing beyond the Reader's own buffer
// (they cost 5 MiB, prefaulted); 1/32 of a 4 MiB frame costs the one step
// of 1/16, not 4 MiB.
func TestReaderBufferGrowsWithArrivingBytes(t *testing.T) {
	half := binary.BigEndian.AppendUint32(nil, DefaultMaxFrameSize)
	half = append(half, 0, 0)
	src := bytes.NewReader(half)
	br := bufio.NewReaderSize(src, readerBufferSize) // allocated before measuring
	for _, pool := range []*BufferPool{nil, NewBufferPoolFrom(0)} {
		n := bytesAllocated(func() {
			for range 20 {
				src.Reset(half)
				br.Reset(src)
				r := NewReader(br, 0)
				r.SetBufferPool(pool)
				_, err := r.ReadFrame()
				requireKind(t, err, ErrTruncated)
			}
		})
		assert.Less(t, n, uint64(64<<10), "20 half frames of 5 MiB (pool %v) allocated %d bytes", pool != nil, n)
	}

	const claim = 4 << 20
	part := binary.BigEndian.AppendUint32(nil, claim)
	part = append(part, make([]byte, claim/32)...)
	n := bytesAllocated(func() {
		src.Reset(part)
		br.Reset(src)
		_, err := NewReader(br, 0).ReadFrame()
		requireKind(t, err, ErrTruncated)
	})
	// Allocated: the one step, 1/growFactor of the frame (2x what
	// arrived). It was the claimed 4 MiB, 32x.
	assert.LessOrEqual(t, n, uint64(claim/growFactor+64<<10), "1/32 of a 4 MiB frame allocated %d bytes", n)
}

// Frames of every size around the growth steps read whole and in order,
// with and without a pool, whatever the split of the reads; a frame still
// held keeps its bytes while the following ones reuse pooled buffers.
// One-byte reads stop after the 1 MiB + 3 frame: it takes the same steps
// as the larger ones (grown from 4 bytes, 16x at a time, up to 1/16 of the
// frame, then its full buffer), which the other splits read, while a byte
// at a time through 8 MiB more cost most of the package's CPU under -race.
func TestReaderGrowingFramesKeepTheirBytes(t *testing.T) {
	const lastOneByte = 1<<20 + 3
	sizes := []int{growDirect - 100, growDirect + 1, readerBufferSize - 50, readerBufferSize + 1, 100 << 10,
		growFactor*readerBufferSize + 5, lastOneByte, 3<<20 + 11, 5 << 20}
	var stream []byte
	var payloads [][]byte
	oneByteEnd, oneByteFrames := 0, 0
	for i, n := range sizes {
		p := bytes.Repeat([]byte{byte('a' + i)}, n)
		f, err := AppendPayloadFrame(nil, sendCommand(1, uint64(i)), sampleMeta("p", uint64(i)), p)
		require.NoError(t, err)
		stream = append(stream, f...)
		stream = append(stream, pingFrame(t)...)
		payloads = append(payloads, p)
		if n == lastOneByte {
			oneByteEnd, oneByteFrames = len(stream), i+1
		}
	}
	require.NotZero(t, oneByteFrames)
	for name, src := range map[string]func() (io.Reader, int){
		"whole": func() (io.Reader, int) { return bytes.NewReader(stream), len(sizes) },
		"one byte": func() (io.Reader, int) {
			return iotest.OneByteReader(bytes.NewReader(stream[:oneByteEnd])), oneByteFrames
		},
		"odd reads":  func() (io.Reader, int) { return &chunkReader{data: stream, n: 7919}, len(sizes) },
		"half reads": func() (io.Reader, int) { return iotest.HalfReader(bytes.NewReader(stream)), len(sizes) },
	} {
		for _, pool := range []*BufferPool{nil, NewBufferPoolFrom(0), NewBufferPool()} {
			in, frames := src()
			r := NewReader(in, 0)
			r.SetBufferPool(pool)
			var held []Frame
			for {
				f, err := r.ReadFrame()
				if err == io.EOF {
					break
				}
				require.NoError(t, err, name)
				if f.Cmd.GetSend() != nil {
					held = append(held, f)
				} else {
					f.Release()
				}
			}
			require.Len(t, held, frames, name)
			for i, f := range held {
				require.Equal(t, payloads[i], f.Payload, "%s: frame %d of %d bytes", name, i, sizes[i])
				f.Release()
			}
		}
	}
}

// Without a pool, a stream of large frames allocates their own buffers
// and, once, the step buffer of their growth: the Reader keeps it for the
// next frames. A new 64 KiB step per 1 MiB frame cost BenchmarkReadFrame1MiB
// 2.5-3x its time.
func TestReaderKeepsItsStepBuffer(t *testing.T) {
	frame, err := AppendPayloadFrame(nil, sendCommand(1, 1), sampleMeta("p", 1), make([]byte, 1<<20))
	require.NoError(t, err)
	const frames = 20
	stream := bytes.Repeat(frame, frames)
	src := bytes.NewReader(stream)
	br := bufio.NewReaderSize(src, readerBufferSize) // allocated before measuring
	n := bytesAllocated(func() {
		r := NewReader(br, 0)
		for range frames {
			f, err := r.ReadFrame()
			require.NoError(t, err)
			require.Len(t, f.Payload, 1<<20)
		}
	})
	// The frames' buffers, one step of 1/growFactor of a frame, and the
	// decoded commands and metadata (about 9 KiB a frame).
	limit := uint64(frames*len(frame) + len(frame)/growFactor + frames*16<<10)
	assert.LessOrEqual(t, n, limit, "%d frames of %d bytes allocated %d bytes", frames, len(frame), n)
}
