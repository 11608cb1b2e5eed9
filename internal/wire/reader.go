package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
)

// readerBufferSize is the size of the bufio.Reader that NewReader puts in
// front of a reader that is not already buffered.
const readerBufferSize = 32 << 10

// Reader reads frames from a stream, such as a connection. It is not safe
// for concurrent use.
type Reader struct {
	r    io.Reader
	raw  io.Reader // what r buffers when NewReader made r; nil otherwise
	max  int
	hdr  [4]byte
	err  error // sticky: the stream is unusable
	pool *BufferPool
	step []byte // without a pool, the buffer of a growing frame's steps (stepBuffer)
}

// NewReader returns a Reader of frames from r that rejects frames whose
// TOTAL_SIZE exceeds maxFrameSize (DefaultMaxFrameSize when <= 0). Unless r
// is a *bufio.Reader, the Reader buffers it (32 KiB) and may read ahead of the
// frame it returns, so r must not be read from elsewhere.
func NewReader(r io.Reader, maxFrameSize int) *Reader {
	if _, ok := r.(*bufio.Reader); ok {
		return &Reader{r: r, max: maxFrameSize}
	}
	return &Reader{r: bufio.NewReaderSize(r, readerBufferSize), raw: r, max: maxFrameSize}
}

// readInto fills buf with the next len(buf) bytes of the stream. What the
// bufio.Reader holds is copied; the rest of a read larger than its buffer
// is read straight from the stream into buf, so that a large frame's bytes
// are copied once (by the kernel) rather than twice.
func (r *Reader) readInto(buf []byte) error {
	br, ok := r.r.(*bufio.Reader)
	if !ok || r.raw == nil || len(buf) <= readerBufferSize {
		_, err := io.ReadFull(r.r, buf)
		return err
	}
	n, _ := br.Read(buf[:min(br.Buffered(), len(buf))])
	if n == len(buf) {
		return nil
	}
	m, err := io.ReadFull(r.raw, buf[n:])
	if err == io.EOF && n+m > 0 {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// SetMaxFrameSize changes the frame size limit for the following frames, for
// instance once CommandConnected announces the broker's max_message_size (use
// max_message_size + FramePadding). Values <= 0 mean DefaultMaxFrameSize.
func (r *Reader) SetMaxFrameSize(maxFrameSize int) { r.max = maxFrameSize }

// SetBufferPool makes the Reader take frame buffers from p; frames then
// have a Release method that gives the buffer back. Default: no pool, every
// frame owns its buffer for good.
func (r *Reader) SetBufferPool(p *BufferPool) { r.pool = p }

// ReadFrame reads and decodes the next frame. It reads the 4-byte size and
// checks it against the limit before allocating anything for the frame.
// The frame's buffer then grows with the bytes that arrive rather than
// with what the size claims (see growDirect): a peer that announces a large
// frame and sends little of it costs little memory. The buffer belongs to
// the returned frame alone (its Payload and RawMeta alias it, and it is
// never reused).
//
// At a clean end of stream between frames it returns io.EOF. A stream that
// ends inside a frame gives ErrTruncated (wrapping io.ErrUnexpectedEOF). A
// size error (ErrFrameTooLarge, ErrBadSize for TOTAL_SIZE < 4), a truncation
// or an error of the underlying reader leaves the stream unusable: the same
// error is returned from then on. Any other error (ErrChecksum,
// ErrUnknownCommand, ...) concerns one frame that was consumed whole; the
// next call reads the following frame.
func (r *Reader) ReadFrame() (Frame, error) {
	if r.err != nil {
		return Frame{}, r.err
	}
	if _, err := io.ReadFull(r.r, r.hdr[:]); err != nil {
		return Frame{}, r.fail(err)
	}
	total := binary.BigEndian.Uint32(r.hdr[:])
	if err := checkTotalSize(total, r.max); err != nil {
		r.err = err
		return Frame{}, err
	}
	buf, err := r.readFrameBytes(4 + int(total))
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return Frame{}, r.fail(err)
	}
	f, err := decodeBody(buf[4:])
	if r.pool != nil {
		f.buf, f.pool = buf, r.pool
	}
	return f, err
}

// fail records a read error as sticky, turning an end of stream inside a
// frame into ErrTruncated.
func (r *Reader) fail(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = newError(ErrTruncated, "stream ended inside a frame", io.ErrUnexpectedEOF)
	}
	r.err = err
	return err
}
