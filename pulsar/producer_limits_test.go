package pulsar

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
)

// delayReceipts holds every send receipt back by d.
func delayReceipts(b *brokerstub.Broker, d time.Duration) {
	b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
		if ev.Type == "SEND_RECEIPT" {
			return brokerstub.Action{Delay: d}
		}
		return brokerstub.Action{}
	})
}

func TestProducerMaxPendingMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c := testClient(t, b)
		topic := testTopic(t)
		p := testProducer(t, c, ProducerOptions{Topic: topic, DisableBatching: true, MaxPendingMessages: 2})
		delayReceipts(b, 200*time.Millisecond)
		for range 2 {
			p.SendAsync(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: []byte("x")}, nil)
		}
		if st := p.Stats(); st.PendingMessages != 2 {
			t.Errorf("pending %d", st.PendingMessages)
		}
		// The third waits for a receipt.
		start := time.Now()
		if _, err := p.Send(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: []byte("y")}); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < 200*time.Millisecond { // bubble time: exact
			t.Errorf("third message did not wait for room (%v)", d)
		}
		// A context that ends while waiting for room.
		for range 2 {
			p.SendAsync(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: []byte("x")}, nil)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		if _, err := p.Send(ctx, &ProducerMessage{Payload: []byte("z")}); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("send with expiring context: %v", err)
		}
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestProducerQueueFullWithoutBlocking(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c := testClient(t, b, ClientOptions{MemoryLimitBytes: 1000})
		topic := testTopic(t)
		p := testProducer(t, c, ProducerOptions{Topic: topic, DisableBatching: true, MaxPendingMessages: 2, DisableBlockIfQueueFull: true})
		delayReceipts(b, 200*time.Millisecond)
		for range 2 {
			p.SendAsync(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: []byte("x")}, nil)
		}
		if _, err := p.Send(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: []byte("y")}); !errors.Is(err, ErrProducerQueueFull) {
			t.Errorf("pending limit: %v", err)
		}
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		// Memory: 600 bytes pending, 600 more do not fit.
		p.SendAsync(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: make([]byte, 600)}, nil)
		if _, err := p.Send(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: make([]byte, 600)}); !errors.Is(err, ErrProducerQueueFull) {
			t.Errorf("memory limit: %v", err)
		}
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		if st := p.Stats(); st.Errors != 2 || st.MessagesSent != 3 {
			t.Errorf("stats %+v", st)
		}
	})
}

// TestProducerMemoryLimit: a message counted whole (compressed) and
// larger than the whole limit fails at once, with an error that names the
// option; a chunked one larger than the limit goes through, its chunks
// counted as they are in flight; others wait for memory to be released.
func TestProducerMemoryLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, MaxMessageSize: 256 << 10})
		c := testClient(t, b, ClientOptions{MemoryLimitBytes: 1 << 20})
		topic := testTopic(t)
		pz := testProducer(t, c, ProducerOptions{Topic: testTopic(t), EnableChunking: true, CompressionType: ZSTD})
		_, err := pz.Send(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: make([]byte, 3<<20)})
		if !errors.Is(err, ErrMessageTooLarge) || !strings.Contains(err.Error(), "MemoryLimitBytes") ||
			strings.Contains(err.Error(), "MaxMessageSize") {
			t.Fatalf("3 MiB compressed message with a 1 MiB limit: %v", err)
		}
		p := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true})
		id, err := p.Send(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: payloadOf(3<<20, 9)})
		if err != nil {
			t.Fatalf("3 MiB chunked message with a 1 MiB limit: %v", err)
		}
		if _, ok := id.(ChunkMessageID); !ok {
			t.Fatalf("id %T", id)
		}
		if used := c.mem.inUse(); used != 0 {
			t.Errorf("memory in use after the chunked message: %d", used)
		}

		delayReceipts(b, 300*time.Millisecond)
		first := make(chan error, 1)
		p.SendAsync(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: payloadOf(700<<10, 1)}, func(_ MessageID, _ *ProducerMessage, err error) {
			first <- err
		})
		if used := c.mem.inUse(); used != 700<<10 {
			t.Errorf("memory in use %d, want the chunked message's %d", used, 700<<10)
		}
		start := time.Now()
		if _, err := p.Send(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: payloadOf(700<<10, 2)}); err != nil {
			t.Fatal(err)
		}
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < 300*time.Millisecond { // bubble time: exact
			t.Errorf("second message did not wait for memory (%v)", d)
		}
		if used := c.mem.inUse(); used != 0 {
			t.Errorf("memory in use after receipts: %d", used)
		}

		// With compression the payload held, not the original, is counted.
		pz2 := testProducer(t, c, ProducerOptions{Topic: testTopic(t), CompressionType: ZSTD, DisableBatching: true})
		b.Intercept(nil)
		delayReceipts(b, 200*time.Millisecond)
		done := make(chan error, 1)
		pz2.SendAsync(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: make([]byte, 200<<10)}, func(_ MessageID, _ *ProducerMessage, err error) {
			done <- err
		})
		if used := c.mem.inUse(); used <= 0 || used > 10<<10 {
			t.Errorf("200 KiB of zeros compressed: %d bytes accounted", used)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if used := c.mem.inUse(); used != 0 {
			t.Errorf("memory in use after receipt: %d", used)
		}
	})
}

// TestProducerMemoryLimitSendTimeout: waiting for memory counts against the
// send timeout.
func TestProducerMemoryLimitSendTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c := testClient(t, b, ClientOptions{MemoryLimitBytes: 1000})
		p := testProducer(t, c, ProducerOptions{Topic: testTopic(t), DisableBatching: true, SendTimeout: 200 * time.Millisecond})
		b.Intercept(func(ev brokerstub.Event) brokerstub.Action { return brokerstub.Action{Drop: ev.Type == "SEND_RECEIPT"} })
		p.SendAsync(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: make([]byte, 800)}, nil)
		start := time.Now()
		_, err := p.Send(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: make([]byte, 800)})
		if !errors.Is(err, ErrSendTimeout) {
			t.Fatalf("err = %v", err)
		}
		// ErrSendTimeout (not ctx's deadline) proves the wait ended at the
		// send timeout; bubble time is exact, so it was not before it either.
		if d := time.Since(start); d < 200*time.Millisecond {
			t.Errorf("timed out after %v, before SendTimeout (200ms)", d)
		}
	})
}
