package pulsar

import (
	"context"
	"fmt"
	"io"

	"github.com/pulsargo/sdk/internal/consumer"
)

// ErrStreamBroken: a MessageStream ended before its last byte, because the
// connection to the broker was lost, the consumer was closed or sought,
// the stream's context ended, its chunks came out of order, or the message
// can never be completed (its producer gave it up: a SendReader whose
// reader failed). The message is not acknowledged: the broker delivers it
// again, whole (to this consumer or another of a shared subscription), or,
// for a message that can never be completed, IncompleteChunkPolicy
// applies. Read returns an error wrapping it; test with errors.Is.
var ErrStreamBroken = consumer.ErrStreamBroken

// ErrStreamNotRead: a streamed message was acknowledged before its stream
// returned io.EOF. It wraps ErrInvalidOptions' case ErrInvalidAck.
var ErrStreamNotRead = consumer.ErrStreamOpen

// MessageStream is a received message whose payload is read as an
// io.ReadCloser. A chunked message larger than MaxPendingChunkedBytes
// (256 MiB by default) is streamed: Read returns its bytes as its chunks
// arrive from the broker, in order, while the consumer holds only a few
// chunks (ConsumerOptions.StreamWindow, see there). Any other message
// (an ordinary one, or a chunked one reassembled within the budget) is
// read from its payload in memory, so that an application can take every
// message with ReceiveStream whatever its size.
//
// The embedded Message gives the metadata (key, properties, times,
// redelivery count); its Payload is nil for a streamed message. Read the
// stream to io.EOF, then acknowledge it (Ack(stream) or AckID(stream.ID())):
// an acknowledgment before EOF fails with ErrStreamNotRead. Close the
// stream when done with it: closed before EOF, the message is given back
// and delivered again, whole, after NackRedeliveryDelay. A stream nobody
// reads or closes stops its partition once its window is full.
//
// Read blocks until the next bytes arrive; the context given to
// ReceiveStream (or NextStream) also bounds the reading, as a request's
// context bounds the body of an http.Response: once it is done, Read fails
// (wrapping ErrStreamBroken and the context's error) and the message is
// given back. When the stream breaks (see ErrStreamBroken) Read returns
// the error and the message is delivered again whole; its bytes read so far
// are to be discarded.
//
// A MessageStream is for one goroutine.
type MessageStream struct {
	Message
	s   *consumer.Stream
	ctx context.Context
}

// newMessageStream returns the stream of msg.
func newMessageStream(ctx context.Context, msg Message) *MessageStream {
	if m, ok := msg.(*message); ok && m.m.Stream != nil {
		return &MessageStream{Message: msg, s: m.m.Stream, ctx: ctx}
	}
	return &MessageStream{Message: msg, s: consumer.NewBytesStream(msg.Payload(), nil), ctx: ctx}
}

// Read reads the payload; it returns io.EOF after its last byte.
func (m *MessageStream) Read(p []byte) (int, error) { return m.s.Read(m.ctx, p) }

// WriteTo writes the rest of the payload to w, each chunk as it arrives
// without copying it (io.Copy uses it). It returns nil at the end of the
// payload.
func (m *MessageStream) WriteTo(w io.Writer) (int64, error) { return m.s.WriteTo(m.ctx, w) }

// Close releases the stream. Before io.EOF it gives the message up: it is
// delivered again, whole, after NackRedeliveryDelay. It always returns nil
// and may be called more than once.
func (m *MessageStream) Close() error { return m.s.Close() }

// Size returns the payload's size in bytes, known from the start.
func (m *MessageStream) Size() int64 { return m.s.Size() }

// Streamed reports whether the payload arrives chunk by chunk (rather
// than being held in memory whole).
func (m *MessageStream) Streamed() bool {
	mm, ok := m.Message.(*message)
	return ok && mm.m.Stream != nil
}

// ID returns the message's id. For a streamed message, the id naming the
// whole message (a ChunkMessageID with its last chunk) is known once Read
// returned io.EOF; before, it names the first chunk only (FirstChunkID and
// LastChunkID are the same), which still serves Seek and Ack.
func (m *MessageStream) ID() MessageID {
	if m.Streamed() {
		if id, ok := m.s.ID(); ok {
			return id
		}
	}
	return m.Message.ID()
}

// MessageStreamOf returns the stream of a message received from Chan (or
// a MessageChannel): a streamed message arrives there too, with a nil
// Payload, and its bytes are read from the stream (ctx bounds the
// reading, see MessageStream). For any other message it returns a stream
// over its payload. ok is false for a message not received by this SDK.
func MessageStreamOf(ctx context.Context, msg Message) (s *MessageStream, ok bool) {
	switch m := msg.(type) {
	case *MessageStream:
		return m, true
	case *message:
		return newMessageStream(ctx, m), true
	}
	return nil, false
}

// unwrapStream returns the message a MessageStream carries, or msg.
func unwrapStream(msg Message) Message {
	if s, ok := msg.(*MessageStream); ok {
		return s.Message
	}
	return msg
}

// tooLargeToReceive is Receive's (and Next's) answer to a streamed message:
// it gives the message back and returns a typed error naming the options.
func tooLargeToReceive(msg Message) (Message, error) {
	m, ok := msg.(*message)
	if !ok || m.m.Stream == nil {
		return msg, nil
	}
	_ = m.m.Stream.Close()
	return nil, fmt.Errorf("%w: chunked message %v of %d bytes is larger than MaxPendingChunkedBytes, the most a consumer "+
		"reassembles in memory: receive it with ReceiveStream (NextStream for a reader) or raise MaxPendingChunkedBytes; "+
		"it is delivered again after NackRedeliveryDelay",
		ErrMessageTooLarge, msg.ID(), m.m.Stream.Size())
}

// ReceiveStream returns the next message as a MessageStream (see there):
// the next message of any size, streamed when it is a chunked message
// larger than MaxPendingChunkedBytes. ctx bounds the wait and the
// reading of the stream.
func (cs *consumerImpl) ReceiveStream(ctx context.Context) (*MessageStream, error) {
	msg, err := cs.receive(ctx)
	if err != nil {
		return nil, err
	}
	return newMessageStream(ctx, msg), nil
}

// ReceiveStream of a zero-queue consumer: it never streams (every message
// is assembled), and asks the broker for each message as Receive does.
func (z *zeroQueueConsumer) ReceiveStream(ctx context.Context) (*MessageStream, error) {
	msg, err := z.Receive(ctx)
	if err != nil {
		return nil, err
	}
	return newMessageStream(ctx, msg), nil
}

// NextStream returns the next message as a MessageStream, as
// Consumer.ReceiveStream.
func (r *readerImpl) NextStream(ctx context.Context) (*MessageStream, error) {
	msg, err := r.next(ctx)
	if err != nil {
		return nil, err
	}
	return newMessageStream(ctx, msg), nil
}
