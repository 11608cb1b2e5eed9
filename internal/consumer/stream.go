package consumer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/messageid"
)

// ErrStreamBroken: a streamed message ended before its last chunk was
// read: the connection was lost, the consumer was closed or sought, the
// broker redelivered its chunks, or its chunks stopped coming. It is
// never acknowledged by the engine: the broker delivers it again, whole
// (or the IncompleteChunkPolicy applies to a message that can never be
// completed).
var ErrStreamBroken = errors.New("message stream broken: the message is delivered again whole")

// ErrStreamOpen: a streamed message was acknowledged before its stream
// was read to io.EOF (its last chunks may not have arrived). It wraps
// api.ErrInvalidAck.
var ErrStreamOpen = fmt.Errorf("%w: streamed message not read to its end", api.ErrInvalidAck)

// DefaultStreamWindow is the default Options.StreamWindow: chunks a
// stream holds, read or not, before the broker gets no more permits.
const DefaultStreamWindow = 8

// Stream is the body of a message read while its chunks arrive. The
// engine's loop pushes chunks (push, complete, fail); one application
// goroutine reads them (Read, WriteTo, Close). Each chunk is held in the
// frame it arrived in until it is read, then given back; the engine is
// told (consumed) so that the broker gets a permit for the next one.
type Stream struct {
	size int64

	mu       sync.Mutex
	wake     chan struct{} // signalled when something was pushed or the stream ended
	chunks   []streamChunk // pushed, not yet read (chunks[0] may be partly read)
	complete bool          // every chunk was pushed
	err      error         // ended early (broken, closed)
	closed   bool          // closed by the reader
	read     int64
	id       messageid.ChunkMessageID // the whole message's, once complete
	hasID    bool

	consumed func(n int, bytes int64) // n chunks of bytes were read or dropped; any goroutine
	abort    func(err error)          // the reader gave the message up before EOF
}

type streamChunk struct {
	data    []byte
	n       int64  // len(data) when pushed
	release func() // gives the chunk's frame buffer back; may be nil
}

func newStream(size int64, consumed func(int, int64), abort func(error)) *Stream {
	return &Stream{size: size, wake: make(chan struct{}, 1), consumed: consumed, abort: abort}
}

// newBytesStream returns a Stream over a payload held whole (an ordinary
// message).
func newBytesStream(payload []byte, id messageid.MessageID) *Stream {
	s := newStream(int64(len(payload)), nil, nil)
	if len(payload) > 0 {
		s.chunks = []streamChunk{{data: payload}}
	}
	s.complete = true
	if c, ok := id.(messageid.ChunkMessageID); ok {
		s.id, s.hasID = c, true
	}
	return s
}

// NewBytesStream returns a complete Stream over payload, for a message
// that was received whole; id is its id when it is a chunk id.
func NewBytesStream(payload []byte, id messageid.MessageID) *Stream {
	return newBytesStream(payload, id)
}

// Size returns the message's payload size in bytes.
func (s *Stream) Size() int64 { return s.size }

// ID returns the whole message's chunk id once every chunk arrived
// (ok false before, and for a stream over a payload that is not chunked).
func (s *Stream) ID() (id messageid.ChunkMessageID, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id, s.hasID
}

func (s *Stream) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// push appends a chunk; it reports false (and releases it) when the
// stream has ended already.
func (s *Stream) push(data []byte, release func()) bool {
	s.mu.Lock()
	if s.err != nil || s.closed {
		s.mu.Unlock()
		if release != nil {
			release()
		}
		return false
	}
	s.chunks = append(s.chunks, streamChunk{data: data, n: int64(len(data)), release: release})
	s.mu.Unlock()
	s.signal()
	return true
}

// finish marks the stream complete with the message's id.
func (s *Stream) finish(id messageid.ChunkMessageID) {
	s.mu.Lock()
	if s.err == nil {
		s.complete, s.id, s.hasID = true, id, true
	}
	s.mu.Unlock()
	s.signal()
}

// fail ends the stream with err (wrapped in ErrStreamBroken) unless it is
// complete (and not force) or ended already, dropping its chunks; it
// returns how many chunks it dropped.
func (s *Stream) fail(err error, force bool) (dropped int, bytes int64) {
	s.mu.Lock()
	if (s.complete && (!force || len(s.chunks) == 0)) || s.err != nil || s.closed {
		s.mu.Unlock()
		return 0, 0
	}
	s.err = fmt.Errorf("%w: %w", ErrStreamBroken, err)
	chunks := s.chunks
	s.chunks = nil
	s.mu.Unlock()
	for _, c := range chunks {
		bytes += c.n
		if c.release != nil {
			c.release()
		}
	}
	s.signal()
	return len(chunks), bytes
}

// Read reads the payload as it arrives. It blocks until a chunk is there;
// ctx (the receive call's) ends the wait, and the stream with it. It
// returns io.EOF after the last byte, and an error wrapping
// ErrStreamBroken when the stream ended early.
func (s *Stream) Read(ctx context.Context, p []byte) (int, error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return 0, errReadClosed
		}
		if len(s.chunks) > 0 {
			if len(p) == 0 {
				s.mu.Unlock()
				return 0, nil
			}
			c := &s.chunks[0]
			n := copy(p, c.data)
			c.data = c.data[n:]
			s.read += int64(n)
			var done streamChunk
			emptied := len(c.data) == 0
			if emptied {
				done = *c
				s.chunks[0] = streamChunk{}
				s.chunks = s.chunks[1:]
			}
			s.mu.Unlock()
			if emptied {
				s.done(done)
			}
			return n, nil
		}
		if s.err != nil {
			err := s.err
			s.mu.Unlock()
			return 0, err
		}
		if s.complete {
			s.mu.Unlock()
			return 0, io.EOF
		}
		s.mu.Unlock()
		select {
		case <-s.wake:
		case <-ctx.Done():
			err := fmt.Errorf("reading the message stream: %w", ctx.Err())
			s.giveUp(err)
			return 0, fmt.Errorf("%w: %w", ErrStreamBroken, err)
		}
	}
}

// WriteTo writes the payload to w as its chunks arrive, without copying
// them; it returns nil at the end of the payload, as io.Copy expects.
func (s *Stream) WriteTo(ctx context.Context, w io.Writer) (int64, error) {
	var total int64
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return total, errReadClosed
		}
		if len(s.chunks) > 0 {
			c := s.chunks[0]
			s.chunks[0] = streamChunk{}
			s.chunks = s.chunks[1:]
			s.read += int64(len(c.data))
			s.mu.Unlock()
			n, err := w.Write(c.data)
			total += int64(n)
			s.done(c)
			if err == nil && n < len(c.data) {
				err = io.ErrShortWrite
			}
			if err != nil {
				s.giveUp(fmt.Errorf("writing the message stream: %w", err))
				return total, err
			}
			continue
		}
		if s.err != nil {
			err := s.err
			s.mu.Unlock()
			return total, err
		}
		if s.complete {
			s.mu.Unlock()
			return total, nil
		}
		s.mu.Unlock()
		select {
		case <-s.wake:
		case <-ctx.Done():
			err := fmt.Errorf("reading the message stream: %w", ctx.Err())
			s.giveUp(err)
			return total, fmt.Errorf("%w: %w", ErrStreamBroken, err)
		}
	}
}

// done gives a read chunk back.
func (s *Stream) done(c streamChunk) {
	if c.release != nil {
		c.release()
	}
	if s.consumed != nil {
		s.consumed(1, c.n)
	}
}

var errReadClosed = errors.New("read of a closed message stream")

// Close ends reading. Before the end of the payload it gives the message
// up: the engine has it delivered again, whole. After io.EOF it only
// releases the stream. It is idempotent.
func (s *Stream) Close() error {
	s.giveUp(errors.New("closed before the end of the message"))
	return nil
}

// giveUp closes the stream for the reader; unless the payload was read to
// its end or the stream broke already, the engine is told to have the
// message delivered again.
func (s *Stream) giveUp(reason error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	whole := s.complete && len(s.chunks) == 0
	broken := s.err != nil
	chunks := s.chunks
	s.chunks = nil
	s.mu.Unlock()
	var bytes int64
	for _, c := range chunks {
		bytes += c.n
		if c.release != nil {
			c.release()
		}
	}
	if s.consumed != nil && len(chunks) > 0 {
		s.consumed(len(chunks), bytes)
	}
	if !whole && !broken && s.abort != nil {
		s.abort(reason)
	}
	s.signal()
}
