package consumer

import (
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"

	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/compress"
)

// held returns the chunks the engine's streams hold and the permits the
// broker holds.
func held[T any](t *testing.T, e *Engine[T]) (chunks, brokerPermits int) {
	t.Helper()
	if err := e.call(func() { chunks, brokerPermits = e.streamHeld, e.brokerPerm }); err != nil {
		t.Fatal(err)
	}
	return chunks, brokerPermits
}

// TestStreamWindowBoundsHeldChunks: a chunked message of 40 chunks, larger
// than MaxPendingBytes and stored whole before the consumer subscribes,
// is streamed, read slowly: the engine holds no more chunks than the
// receiver queue's permits brought (10) and, once the chunks those
// permits brought are read, no more than the StreamWindow (4) chunks held
// plus permits given; the bytes read are the message's.
func TestStreamWindowBoundsHeldChunks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		payload := pattern(40*1000, 3)
		chunks, err := p.Chunks(payload, 1000, compress.NONE)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			if _, err := p.SendRaw(ctxT(t), c.Meta, c.Payload); err != nil {
				t.Fatal(err)
			}
		}
		const window = 4
		e, out := v.engine(topic, "s", func(o *Options[*Message]) {
			o.Chunks = chunk.Options{MaxPendingBytes: 8000}
			o.StreamWindow, o.ReceiverQueueSize = window, 10
		})
		m := recv(t, out)
		if m.Stream == nil || m.Payload != nil || m.Stream.Size() != int64(len(payload)) {
			t.Fatalf("message not streamed: stream %v, payload %d bytes", m.Stream != nil, len(m.Payload))
		}
		var got []byte
		buf := make([]byte, 300) // slower than the chunks: a chunk takes 4 reads
		maxHeld, maxLater := 0, 0
		for {
			synctest.Wait()
			h, perms := held(t, e)
			maxHeld = max(maxHeld, h+perms)
			if len(got) >= 12*1000 && len(got) < len(payload) { // once done, the queue's permits come back
				maxLater = max(maxLater, h+perms)
			}
			n, err := m.Stream.Read(context.Background(), buf)
			got = append(got, buf[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		sameBytes(t, got, payload)
		if maxHeld > 10 || maxLater > window {
			t.Errorf("held chunks plus broker permits reached %d (%d after the first 12 chunks), queue 10, window %d", maxHeld, maxLater, window)
		}
		id, ok := m.Stream.ID()
		if !ok || id.LastChunkID().EntryID()-id.FirstChunkID().EntryID() != 39 {
			t.Fatalf("stream id %v %v", id, ok)
		}
		if err := e.Ack(ctxT(t), id); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", ackedThrough(id))
	})
}

// TestStreamAbortedRedelivered: a stream closed before its end is given
// back: its Read fails, an Ack of it fails, and it is delivered again,
// whole, as a new stream.
func TestStreamAbortedRedelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		payload := pattern(20*1000, 5)
		chunks, err := p.Chunks(payload, 1000, compress.NONE)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			if _, err := p.SendRaw(ctxT(t), c.Meta, c.Payload); err != nil {
				t.Fatal(err)
			}
		}
		e, out := v.engine(topic, "s", func(o *Options[*Message]) {
			o.Chunks = chunk.Options{MaxPendingBytes: 8000}
			o.NackDelay = 1
		})
		m := recv(t, out)
		if _, err := io.ReadFull(readerOf(m.Stream), make([]byte, 1500)); err != nil {
			t.Fatal(err)
		}
		if err := e.Ack(ctxT(t), m.ID); !errors.Is(err, ErrStreamOpen) {
			t.Errorf("ack of an open stream: %v", err)
		}
		_ = m.Stream.Close()
		if _, err := m.Stream.Read(context.Background(), make([]byte, 10)); err == nil {
			t.Error("read of a closed stream succeeded")
		}
		again := recv(t, out)
		got, err := io.ReadAll(readerOf(again.Stream))
		if err != nil {
			t.Fatal(err)
		}
		sameBytes(t, got, payload)
		if again.RedeliveryCount == 0 {
			t.Error("redelivered with count 0")
		}
		id, _ := again.Stream.ID()
		if err := e.Ack(ctxT(t), id); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", ackedThrough(id))
		if h, _ := held(t, e); h != 0 {
			t.Errorf("%d chunks still held", h)
		}
	})
}

type streamReader struct{ s *Stream }

func (r streamReader) Read(p []byte) (int, error) { return r.s.Read(context.Background(), p) }

func readerOf(s *Stream) io.Reader { return streamReader{s} }
