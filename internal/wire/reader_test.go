package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	protobuf "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

func pingFrame(t testing.TB) []byte {
	b, err := AppendCommand(nil, &proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
	require.NoError(t, err)
	return b
}

func TestReaderStream(t *testing.T) {
	var stream []byte
	stream = append(stream, pingFrame(t)...)
	stream = append(stream, validPayloadFrame(t)...)
	stream = append(stream, goldenSend...)
	stream = append(stream, pingFrame(t)...)

	// One byte at a time exercises partial reads.
	for name, src := range map[string]io.Reader{
		"whole":     bytes.NewReader(stream),
		"one byte":  iotest.OneByteReader(bytes.NewReader(stream)),
		"buffered":  bufio.NewReaderSize(bytes.NewReader(stream), 16),
		"half read": iotest.HalfReader(bytes.NewReader(stream)),
	} {
		t.Run(name, func(t *testing.T) {
			r := NewReader(src, 0)
			var frames []Frame
			for {
				f, err := r.ReadFrame()
				if err == io.EOF {
					break
				}
				require.NoError(t, err)
				frames = append(frames, f)
			}
			require.Len(t, frames, 4)
			assert.Equal(t, proto.BaseCommand_PING, frames[0].Cmd.GetType())
			assert.Equal(t, []byte("hello, pulsar"), frames[1].Payload)
			assert.Equal(t, []byte("hi"), frames[2].Payload)
			assert.Equal(t, proto.BaseCommand_PING, frames[3].Cmd.GetType())
			total := 0
			for _, f := range frames {
				total += f.Size
			}
			assert.Equal(t, len(stream), total)

			// Frames own their bytes: they survive later reads and
			// changes to the source.
			frames[1].Payload[0] = 'H'
			assert.Equal(t, []byte("hi"), frames[2].Payload)

			// EOF is sticky.
			_, err := r.ReadFrame()
			assert.Equal(t, io.EOF, err)
		})
	}
}

func TestReaderTruncatedAtEveryOffset(t *testing.T) {
	frame := validPayloadFrame(t)
	for i := 1; i < len(frame); i++ {
		r := NewReader(bytes.NewReader(frame[:i]), 0)
		_, err := r.ReadFrame()
		requireKind(t, err, ErrTruncated)
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
		_, err2 := r.ReadFrame()
		assert.Equal(t, err, err2, "sticky")
	}
	_, err := NewReader(bytes.NewReader(nil), 0).ReadFrame()
	assert.Equal(t, io.EOF, err)
}

func TestReaderFatalAndRecoverableErrors(t *testing.T) {
	// A bad checksum consumes its frame only; the next frame is read.
	bad := validPayloadFrame(t)
	bad[len(bad)-1] ^= 0x01
	unknown := rawFrame([]byte{0x08, 99}, nil)
	stream := append(append(append([]byte{}, bad...), unknown...), pingFrame(t)...)
	r := NewReader(bytes.NewReader(stream), 0)
	_, err := r.ReadFrame()
	requireKind(t, err, ErrChecksum)
	_, err = r.ReadFrame()
	requireKind(t, err, ErrUnknownCommand)
	f, err := r.ReadFrame()
	require.NoError(t, err)
	assert.Equal(t, "PING", CommandType(f.Cmd))

	// A frame over the limit stops the stream.
	stream = append(validPayloadFrame(t), pingFrame(t)...)
	r = NewReader(bytes.NewReader(stream), 20)
	_, err = r.ReadFrame()
	requireKind(t, err, ErrFrameTooLarge)
	_, err = r.ReadFrame()
	requireKind(t, err, ErrFrameTooLarge)

	// So does a total size below 4.
	r = NewReader(bytes.NewReader([]byte{0, 0, 0, 3, 0, 0, 0}), 0)
	_, err = r.ReadFrame()
	requireKind(t, err, ErrBadSize)

	// Errors of the underlying reader are returned as they are.
	boom := errors.New("boom")
	r = NewReader(iotest.ErrReader(boom), 0)
	_, err = r.ReadFrame()
	assert.Equal(t, boom, err)
	_, err = r.ReadFrame()
	assert.Equal(t, boom, err)
}

func TestReaderSetMaxFrameSize(t *testing.T) {
	frame := validPayloadFrame(t)
	stream := append(append([]byte{}, frame...), frame...)
	r := NewReader(bytes.NewReader(stream), len(frame)-4)
	_, err := r.ReadFrame()
	require.NoError(t, err)
	r.SetMaxFrameSize(len(frame) - 5)
	_, err = r.ReadFrame()
	requireKind(t, err, ErrFrameTooLarge)
}

func TestReaderHugeClaimDoesNotAllocate(t *testing.T) {
	for _, claim := range []uint32{0xFFFFFFFF, DefaultMaxFrameSize + 1, 1 << 30} {
		input := binary.BigEndian.AppendUint32(nil, claim)
		input = append(input, make([]byte, 64)...)
		src := bytes.NewReader(input)
		br := bufio.NewReaderSize(src, 16) // allocated before measuring
		n := bytesAllocated(func() {
			for range 50 {
				src.Reset(input)
				br.Reset(src)
				_, err := NewReader(br, 0).ReadFrame()
				requireKind(t, err, ErrFrameTooLarge)
			}
		})
		assert.Less(t, n, uint64(128<<10), "claim %#x", claim)
	}
}

func TestReaderMatchesDecodeFrame(t *testing.T) {
	frame := validPayloadFrame(t)
	want, err := DecodeFrame(frame, 0)
	require.NoError(t, err)
	got, err := NewReader(bytes.NewReader(frame), 0).ReadFrame()
	require.NoError(t, err)
	assert.True(t, protobuf.Equal(want.Cmd, got.Cmd))
	assert.True(t, protobuf.Equal(want.Meta, got.Meta))
	assert.Equal(t, want.RawMeta, got.RawMeta)
	assert.Equal(t, want.Payload, got.Payload)
	assert.Equal(t, want.Size, got.Size)
	assert.Equal(t, want.HasChecksum, got.HasChecksum)
}
