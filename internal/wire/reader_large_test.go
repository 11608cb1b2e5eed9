package wire

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/proto"
)

// Frames larger than the Reader's buffer are read partly from the buffer
// and the rest straight from the stream: the stream order must hold, with
// small frames around them and with any split of the reads.
func TestReaderLargeFramesBypassTheBuffer(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 5*readerBufferSize/16+3) // > buffer, not a multiple of it
	bigFrame, err := AppendPayloadFrame(nil, sendCommand(1, 1), sampleMeta("p", 1), big)
	require.NoError(t, err)
	var stream []byte
	for range 3 {
		stream = append(stream, pingFrame(t)...)
		stream = append(stream, bigFrame...)
	}
	stream = append(stream, bigFrame...)
	stream = append(stream, pingFrame(t)...)
	for name, src := range map[string]func() io.Reader{
		"whole":     func() io.Reader { return bytes.NewReader(stream) },
		"half read": func() io.Reader { return iotest.HalfReader(bytes.NewReader(stream)) },
		"odd reads": func() io.Reader { return &chunkReader{data: stream, n: 7919} },
	} {
		t.Run(name, func(t *testing.T) {
			r := NewReader(src(), 0)
			var kinds []proto.BaseCommand_Type
			for {
				f, err := r.ReadFrame()
				if err == io.EOF {
					break
				}
				require.NoError(t, err)
				kinds = append(kinds, f.Cmd.GetType())
				if f.Cmd.GetType() == proto.BaseCommand_SEND {
					require.Equal(t, big, f.Payload)
				}
			}
			P, S := proto.BaseCommand_PING, proto.BaseCommand_SEND
			assert.Equal(t, []proto.BaseCommand_Type{P, S, P, S, P, S, S, P}, kinds)
		})
	}
	// A large frame cut short, before and after the buffer's end, is a
	// truncation.
	for _, cut := range []int{readerBufferSize / 2, readerBufferSize + 100, len(bigFrame) - 1} {
		_, err := NewReader(bytes.NewReader(bigFrame[:cut]), 0).ReadFrame()
		requireKind(t, err, ErrTruncated)
	}
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.data)
	c.data = c.data[k:]
	return k, nil
}
