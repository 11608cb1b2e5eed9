package pulsar

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/messageid"
)

// watchedReader serves data and, at each Read, records the client's
// memory in use and the chunks the producer had acknowledged; after fail
// bytes it fails with failErr.
type watchedReader struct {
	data    []byte
	off     int
	fail    int
	failErr error
	check   func() (inUse int64, acked uint64)

	mu       sync.Mutex
	maxInUse int64
	ackedAt  []uint64 // chunks acknowledged at each Read
}

func (r *watchedReader) Read(p []byte) (int, error) {
	inUse, acked := r.check()
	r.mu.Lock()
	r.maxInUse = max(r.maxInUse, inUse)
	r.ackedAt = append(r.ackedAt, acked)
	r.mu.Unlock()
	if r.failErr != nil && r.off >= r.fail {
		return 0, r.failErr
	}
	if r.off == len(r.data) {
		return 0, io.EOF
	}
	end := len(r.data)
	if r.failErr != nil {
		end = min(end, r.fail)
	}
	n := copy(p, r.data[r.off:end])
	r.off += n
	return n, nil
}

// TestProducerSendReader: a message streamed from an io.Reader, 3 times the
// memory limit, arrives whole with the ChunkMessageID SendReader returned;
// the producer read its chunks as receipts made room (the memory in use
// never passed the limit, and the last chunk was read after the first
// receipts); a small one is sent as one frame; without EnableChunking a
// large one is refused.
func TestProducerSendReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, MaxMessageSize: 256 << 10})
		const limit = 1 << 20
		c := testClient(t, b, ClientOptions{MemoryLimitBytes: limit})
		topic := testTopic(t)
		cons, err := c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "s"})
		if err != nil {
			t.Fatal(err)
		}
		defer cons.Close()
		p := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true, CompressionType: LZ4})
		big := payloadOf(3<<20, 11)
		r := &watchedReader{data: big, check: func() (int64, uint64) { return c.mem.inUse(), p.Stats().ChunksSent }}
		id, err := p.SendReader(ctxFor(t, 10*time.Second), &ProducerMessage{Key: "k", Properties: map[string]string{"a": "b"}}, r, int64(len(big)))
		if err != nil {
			t.Fatal(err)
		}
		cid, ok := id.(ChunkMessageID)
		if !ok {
			t.Fatalf("id %T", id)
		}
		if r.maxInUse > limit {
			t.Errorf("memory in use reached %d while reading, over the limit %d", r.maxInUse, limit)
		}
		if r.ackedAt[0] != 0 || r.ackedAt[len(r.ackedAt)-1] == 0 {
			t.Errorf("chunks acknowledged at the reads: %v; want the last chunk read after receipts", r.ackedAt)
		}
		m, err := cons.Receive(ctxFor(t, 10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(m.Payload(), big) || m.Key() != "k" || m.Properties()["a"] != "b" {
			t.Fatalf("received %d bytes key %q props %v", len(m.Payload()), m.Key(), m.Properties())
		}
		if messageid.Compare(m.ID(), id) != 0 || messageid.Compare(messageid.FirstChunk(m.ID()), cid.FirstChunkID()) != 0 {
			t.Errorf("received id %v, SendReader returned %v", m.ID(), id)
		}

		small, err := p.SendReader(ctxFor(t, 10*time.Second), &ProducerMessage{}, strings.NewReader("small"), 5)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := small.(ChunkMessageID); ok {
			t.Error("5 bytes streamed as a chunked message")
		}
		if m, err := cons.Receive(ctxFor(t, 10*time.Second)); err != nil || string(m.Payload()) != "small" {
			t.Fatalf("small: %v %v", m, err)
		}

		off := testProducer(t, c, ProducerOptions{Topic: topic})
		_, err = off.SendReader(ctxFor(t, 10*time.Second), &ProducerMessage{}, bytes.NewReader(big), int64(len(big)))
		if !errors.Is(err, ErrMessageTooLarge) {
			t.Errorf("streamed 3 MiB without EnableChunking: %v", err)
		}
		_, err = p.SendReader(ctxFor(t, 10*time.Second), &ProducerMessage{Payload: []byte("x")}, bytes.NewReader(big), 1)
		if !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("SendReader with a Payload: %v", err)
		}
		if used := c.mem.inUse(); used != 0 {
			t.Errorf("memory in use after the sends: %d", used)
		}
	})
}

// TestProducerSendReaderFailsMidMessage: a reader that fails after two and
// a half chunks, or ends early, fails the message with an error that says
// so and wraps the reader's error; the chunks already stored are never
// delivered as a message (the consumer gets the next message only), and
// the producer holds nothing afterwards (the bubble also checks that no
// goroutine is left).
func TestProducerSendReaderFailsMidMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, MaxMessageSize: 64 << 10})
		c := testClient(t, b, ClientOptions{MemoryLimitBytes: 256 << 10})
		topic := testTopic(t)
		cons, err := c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "s"})
		if err != nil {
			t.Fatal(err)
		}
		defer cons.Close()
		p := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true, ChunkMaxMessageSize: 10_000})
		data := payloadOf(100_000, 3)
		diskErr := errors.New("disk read error")
		r := &watchedReader{data: data, fail: 25_000, failErr: diskErr, check: func() (int64, uint64) { return 0, 0 }}
		_, err = p.SendReader(ctxFor(t, 10*time.Second), &ProducerMessage{}, r, int64(len(data)))
		if !errors.Is(err, diskErr) || !strings.Contains(err.Error(), "aborted after 2 of 10 chunks") {
			t.Fatalf("err = %v", err)
		}
		_, err = p.SendReader(ctxFor(t, 10*time.Second), &ProducerMessage{}, bytes.NewReader(data[:35_000]), int64(len(data)))
		if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "aborted after 3 of 10 chunks") {
			t.Fatalf("reader ending early: %v", err)
		}
		if _, err := p.Send(ctxFor(t, 10*time.Second), &ProducerMessage{Payload: []byte("next")}); err != nil {
			t.Fatal(err)
		}
		m, err := cons.Receive(ctxFor(t, 10*time.Second))
		if err != nil || string(m.Payload()) != "next" {
			t.Fatalf("first message received: %v %v; want the one after the aborted ones", m, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if m, err := cons.Receive(ctx); err == nil {
			t.Fatalf("received %d bytes after the aborted messages", len(m.Payload()))
		}
		if st := p.Stats(); st.PendingMessages != 0 || st.PendingBytes != 0 || st.PendingChunks != 0 || st.Errors != 2 {
			t.Errorf("stats %+v", st)
		}
		if used := c.mem.inUse(); used != 0 {
			t.Errorf("memory in use: %d", used)
		}
	})
}

// TestProducerSendReaderAcrossUnload: the topic is unloaded while a
// streamed message is half sent; the producer re-attaches and writes the
// chunks it holds again (those not acknowledged), then reads on, and the
// message arrives whole with the id SendReader returned.
func TestProducerSendReaderAcrossUnload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, MaxMessageSize: 32 << 10})
		c := testClient(t, b, ClientOptions{MemoryLimitBytes: 256 << 10})
		topic := testTopic(t)
		p := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true})
		var sends atomic.Int32
		unloaded := make(chan struct{})
		b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
			if ev.Type == "SEND" && sends.Add(1) == 5 {
				go func() {
					if err := b.Unload(topic); err != nil {
						t.Error(err)
					}
					close(unloaded)
				}()
				<-unloaded
			}
			return brokerstub.Action{}
		})
		data := payloadOf(1<<20, 4)
		id, err := p.SendReader(ctxFor(t, 30*time.Second), &ProducerMessage{}, bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		b.Intercept(nil)
		if st := p.Stats(); st.Reconnects < 1 {
			t.Errorf("stats %+v: no reconnect", st)
		}
		rc := rawSubscribe(t, b, topic, 0) // from the earliest: the raw consumer does not follow an unload
		g := rc.wait(1, 10*time.Second)
		if !bytes.Equal(g[0].Payload, data) {
			t.Fatalf("received %d bytes, not the payload", len(g[0].Payload))
		}
		if messageid.Compare(g[0].ID, id) != 0 {
			t.Errorf("received id %v, SendReader returned %v", g[0].ID, id)
		}
		// The last chunk went after the unload, to a new ledger; the first
		// did too when its receipt was lost with the connection (the
		// producer wrote the chunks it held again).
		if _, ok := id.(ChunkMessageID); !ok || sends.Load() < 5 {
			t.Errorf("id %v after %d sends: the message was not cut by the unload", id, sends.Load())
		}
		if used := c.mem.inUse(); used != 0 {
			t.Errorf("memory in use: %d", used)
		}
	})
}
