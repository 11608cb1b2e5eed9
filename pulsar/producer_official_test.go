package pulsar

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
)

// Tests named after the official Go client's tests whose behaviour pulsargo
// matches (or deliberately improves on). They run in a testing/synctest
// bubble over the stub's in-memory Dial: synctest.Wait tells "blocked" from
// "not yet done" without any wall-clock wait.

// synctestClient starts a stub without listener and a client on its Dial,
// both inside the calling bubble.
func synctestClient(t *testing.T) (*brokerstub.Broker, Client) {
	t.Helper()
	b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
	c, err := NewClient(ClientOptions{URL: b.URL(), Dialer: b.Dial, Logger: clientLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return b, c
}

// TestBatchIndexAck: the official test sends its end marker with a
// synchronous Send on a producer whose BatchingMaxPublishDelay is an hour.
// Send must not wait for the batch timer: it sends the batch its message
// joined (with the SendAsync messages before it) at once.
func TestBatchIndexAck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := synctestClient(t)
		p := testProducer(t, c, ProducerOptions{Topic: "batch-index-ack", BatchingMaxMessages: 10,
			BatchingMaxPublishDelay: time.Hour})
		for i := range 2 {
			p.SendAsync(context.Background(), &ProducerMessage{Payload: fmt.Appendf(nil, "msg-%d", i)}, nil)
		}
		var id MessageID
		var err error
		sent := make(chan struct{})
		go func() {
			defer close(sent)
			id, err = p.Send(context.Background(), &ProducerMessage{Payload: []byte("end-marker")})
		}()
		synctest.Wait() // everything in the bubble is blocked or done
		select {
		case <-sent:
		default:
			t.Fatal("Send of a batched message waits for BatchingMaxPublishDelay")
		}
		if err != nil {
			t.Fatal(err)
		}
		if id.BatchIdx() != 2 || id.BatchSize() != 3 {
			t.Errorf("end marker id %v: batch index %d of %d, want 2 of 3 (the batch it joined was sent)",
				id, id.BatchIdx(), id.BatchSize())
		}
	})
}

// TestReaderOnSpecificMessageWithBatching: the official test reads the ids
// that SendAsync callbacks stored as soon as FlushWithCtx returns, so Flush
// must return only after the callbacks of the messages it flushed have run.
// The first callback here blocks until the test releases it; Flush must
// still be waiting then.
func TestReaderOnSpecificMessageWithBatching(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := synctestClient(t)
		p := testProducer(t, c, ProducerOptions{Topic: "reader-specific-batching", BatchingMaxMessages: 3,
			BatchingMaxPublishDelay: time.Second})
		release := make(chan struct{})
		var once sync.Once
		unblock := func() { once.Do(func() { close(release) }) }
		t.Cleanup(unblock) // before the producer's Close, should the test fail
		var ids [10]MessageID
		for i := range ids {
			p.SendAsync(context.Background(), &ProducerMessage{Payload: fmt.Appendf(nil, "hello-%d", i)},
				func(id MessageID, _ *ProducerMessage, err error) {
					if err != nil {
						t.Errorf("send %d: %v", i, err)
					}
					if i == 0 {
						<-release
					}
					ids[i] = id
				})
		}
		flushed := make(chan error, 1)
		go func() { flushed <- p.FlushWithCtx(context.Background()) }()
		synctest.Wait()
		select {
		case err := <-flushed:
			t.Fatalf("Flush returned (%v) while a callback of a flushed message had not run", err)
		default:
		}
		unblock()
		if err := <-flushed; err != nil {
			t.Fatal(err)
		}
		for i, id := range ids { // no lock: Flush returning orders the callbacks before
			if id == nil {
				t.Errorf("message %d: callback not run when Flush returned", i)
			}
		}
		// The official test goes on with a reader started after ids[4].
		r, err := c.CreateReader(ReaderOptions{Topic: "reader-specific-batching", StartMessageID: ids[4]})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for i := 5; i < 10; i++ {
			m, err := r.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("hello-%d", i); string(m.Payload()) != want {
				t.Fatalf("reader got %q, want %q", m.Payload(), want)
			}
		}
	})
}

// TestChunkBlockIfQueueFull: the official test expects Send of a message
// of 11 chunks with MaxPendingMessages 1 to fail (its producer counts every
// chunk against MaxPendingMessages, and hangs until ctx ends:
// apache/pulsar-client-go#1448). pulsargo counts a chunked message once,
// so the same Send succeeds: this test pins the deliberate difference.
func TestChunkBlockIfQueueFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := synctestClient(t)
		p := testProducer(t, c, ProducerOptions{Name: "test", Topic: "chunk-block-if-queue-full", EnableChunking: true,
			DisableBatching: true, MaxPendingMessages: 1, ChunkMaxMessageSize: 10})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		id, err := p.Send(ctx, &ProducerMessage{Payload: payloadOf(100, 7)})
		if err != nil {
			t.Fatalf("Send of an 11-chunk message with MaxPendingMessages 1: %v", err)
		}
		if st := p.Stats(); st.ChunksSent != 10 || st.PendingMessages != 0 {
			t.Errorf("stats %+v after Send of 10 chunks (id %v)", st, id)
		}
	})
}
