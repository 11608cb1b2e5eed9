package pulsar

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/messageid"
)

// streamOpts are the options of a consumer that streams the 2 MiB
// messages of these tests (chunks of about 64 KiB, see streamStub).
func streamOpts(topic, sub string) ConsumerOptions {
	return ConsumerOptions{Topic: topic, SubscriptionName: sub, MaxPendingChunkedBytes: 256 << 10,
		NackRedeliveryDelay: time.Second, SubscriptionInitialPosition: SubscriptionPositionEarliest}
}

// TestStreamConsumerClosedMidStream: a consumer closed in the middle of a
// stream gets an ErrStreamBroken from Read; the message is delivered whole
// to the next consumer of the subscription, acknowledged once, and not
// delivered again.
func TestStreamConsumerClosedMidStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, c := streamStub(t)
		topic := testTopic(t)
		first, err := c.Subscribe(streamOpts(topic, "s"))
		if err != nil {
			t.Fatal(err)
		}
		p := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true})
		big := payloadOf(2<<20, 3)
		sent := sendAsync(t, p, &ProducerMessage{}, big)
		s, err := first.ReceiveStream(ctxFor(t, 30*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(s, make([]byte, 100<<10)); err != nil {
			t.Fatal(err)
		}
		first.Close()
		_, err = io.Copy(io.Discard, s)
		if !errors.Is(err, ErrStreamBroken) {
			t.Fatalf("read after the consumer closed: %v, want ErrStreamBroken", err)
		}
		id := <-sent

		second, err := c.Subscribe(streamOpts(topic, "s"))
		if err != nil {
			t.Fatal(err)
		}
		defer second.Close()
		s2, err := second.ReceiveStream(ctxFor(t, 30*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if got := readStream(t, s2); !bytes.Equal(got, big) || messageid.Compare(s2.ID(), id) != 0 {
			t.Fatalf("redelivered: %d bytes id %v, want %d bytes id %v", len(got), s2.ID(), len(big), id)
		}
		if err := second.Ack(s2); err != nil {
			t.Fatal(err)
		}
		waitAckedThrough(t, b, topic, "s", id)
		if m, err := second.ReceiveStream(ctxFor(t, 5*time.Second)); err == nil {
			t.Fatalf("delivered again after its ack: %v", m.ID())
		}
	})
}

// TestStreamSeek: a stream broken by a Seek to its own chunk id, and a
// stream read whole, are streamed again whole after a Seek to the chunk id
// (also deserialized).
func TestStreamSeek(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := streamStub(t)
		topic := testTopic(t)
		cons, err := c.Subscribe(streamOpts(topic, "s"))
		if err != nil {
			t.Fatal(err)
		}
		defer cons.Close()
		p := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true})
		big := payloadOf(2<<20, 5)
		id := <-sendAsync(t, p, &ProducerMessage{}, big)

		s, err := cons.ReceiveStream(ctxFor(t, 30*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(s, make([]byte, 100<<10)); err != nil {
			t.Fatal(err)
		}
		if err := cons.Seek(id); err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, s); !errors.Is(err, ErrStreamBroken) {
			t.Fatalf("read after a seek: %v, want ErrStreamBroken", err)
		}
		for i := range 2 {
			s, err := cons.ReceiveStream(ctxFor(t, 30*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if got := readStream(t, s); !bytes.Equal(got, big) || messageid.Compare(s.ID(), id) != 0 {
				t.Fatalf("after seek %d: %d bytes id %v, want id %v", i, len(got), s.ID(), id)
			}
			restored, err := DeserializeMessageID(s.ID().Serialize())
			if err != nil {
				t.Fatal(err)
			}
			if err := cons.Seek(restored); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestStreamInterleavedProducers: two producers stream large messages at
// once, their chunks interleaved on the topic; both are read whole as
// streams, one after the other.
func TestStreamInterleavedProducers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, c := streamStub(t)
		pc := testClient(t, b, ClientOptions{})
		topic := testTopic(t)
		opts := streamOpts(topic, "s")
		opts.MaxPendingChunkedBytes = 1 << 20 // room for the chunks of the one read second
		cons, err := c.Subscribe(opts)
		if err != nil {
			t.Fatal(err)
		}
		defer cons.Close()
		keys := []string{"a", "b"}
		want := map[string][]byte{"a": payloadOf(2<<20, 1), "b": payloadOf(2<<20, 2)}
		// The payloads are fed a chunk (64 KiB, the stub's MaxMessageSize)
		// at a time to each producer in turn, so that neither can read its
		// next chunk before the other has read its current one: both share
		// the client's connection, so their chunks interleave on the topic
		// whatever the scheduling.
		readers := lockstep(t, 64<<10, want["a"], want["b"])
		for i, k := range keys {
			p := testProducer(t, pc, ProducerOptions{Topic: topic, EnableChunking: true, Name: "p-" + k})
			go func() {
				if _, err := p.SendReader(ctxFor(t, 30*time.Second), &ProducerMessage{Key: k}, readers[i], int64(len(want[k]))); err != nil {
					t.Errorf("SendReader %s: %v", k, err)
				}
			}()
		}
		got := map[string]bool{}
		var ids []MessageID
		for range want {
			s, err := cons.ReceiveStream(ctxFor(t, 30*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			body := readStream(t, s)
			if !s.Streamed() || !bytes.Equal(body, want[s.Key()]) || got[s.Key()] {
				t.Fatalf("message %q: streamed %v, %d bytes, seen before %v", s.Key(), s.Streamed(), len(body), got[s.Key()])
			}
			got[s.Key()] = true
			ids = append(ids, s.ID())
			if err := cons.Ack(s); err != nil {
				t.Fatal(err)
			}
		}
		if !interleaved(ids[0], ids[1]) {
			t.Errorf("chunks were not interleaved on the topic (%v, %v): the test proves nothing", ids[0], ids[1])
		}
	})
}

// lockstep returns a reader of each payload, fed piece bytes at a time to
// each reader in turn: a reader gets its next piece only once every other
// reader has read its current one (or has none left).
func lockstep(t *testing.T, piece int, payloads ...[]byte) []io.Reader {
	readers := make([]io.Reader, len(payloads))
	writers := make([]*io.PipeWriter, len(payloads))
	for i := range payloads {
		r, w := io.Pipe()
		readers[i], writers[i] = r, w
		t.Cleanup(func() { _ = r.Close() })
	}
	go func() {
		for off := 0; ; off += piece {
			left := false
			for i, p := range payloads {
				if off >= len(p) {
					continue
				}
				left = true
				if _, err := writers[i].Write(p[off:min(off+piece, len(p))]); err != nil {
					return
				}
				if off+piece >= len(p) {
					_ = writers[i].Close()
				}
			}
			if !left {
				return
			}
		}
	}()
	return readers
}

// interleaved reports whether the chunk ranges of two chunked messages overlap.
func interleaved(a, b MessageID) bool {
	ca, cb := a.(ChunkMessageID), b.(ChunkMessageID)
	return ca.LastChunkID().EntryID() > cb.FirstChunkID().EntryID() && cb.LastChunkID().EntryID() > ca.FirstChunkID().EntryID()
}

// TestStreamKeySharedWithBatches: on a Key_Shared subscription of two
// consumers that take everything with ReceiveStream, a streamed message
// goes whole to one of them, beside batched small messages of several
// keys, each delivered once and in order per key.
func TestStreamKeySharedWithBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := streamStub(t)
		topic := testTopic(t)
		var conss []Consumer
		for range 2 {
			o := streamOpts(topic, "ks")
			o.Type = KeyShared
			cons, err := c.Subscribe(o)
			if err != nil {
				t.Fatal(err)
			}
			defer cons.Close()
			conss = append(conss, cons)
		}
		small := testProducer(t, c, ProducerOptions{Topic: topic, BatchingMaxMessages: 10, BatchingMaxPublishDelay: time.Millisecond,
			BatcherBuilderType: KeyBasedBatchBuilder})
		bigP := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true, DisableBatching: true})
		big := payloadOf(2<<20, 9)
		const n = 200
		bigSent := sendAsync(t, bigP, &ProducerMessage{Key: "big"}, big)
		var sends sync.WaitGroup
		for i := range n {
			sends.Add(1)
			small.SendAsync(ctxFor(t, 30*time.Second), &ProducerMessage{Key: fmt.Sprintf("k%d", i%4), Payload: fmt.Appendf(nil, "%d", i)},
				func(_ MessageID, _ *ProducerMessage, err error) {
					if err != nil {
						t.Errorf("send %d: %v", i, err)
					}
					sends.Done()
				})
		}
		sends.Wait()
		<-bigSent

		var mu sync.Mutex
		lastOf := map[string]int{}
		seen := map[string]int{}
		bigs := 0
		var wg sync.WaitGroup
		for _, cons := range conss {
			wg.Go(func() {
				for {
					s, err := cons.ReceiveStream(ctxFor(t, 5*time.Second))
					if err != nil {
						return // nothing more
					}
					body, err := io.ReadAll(s)
					if err != nil {
						t.Errorf("read: %v", err)
						return
					}
					mu.Lock()
					if s.Key() == "big" {
						if !bytes.Equal(body, big) || !s.Streamed() {
							t.Errorf("big message: %d bytes, streamed %v", len(body), s.Streamed())
						}
						bigs++
					} else {
						var v int
						fmt.Sscanf(string(body), "%d", &v)
						if last, ok := lastOf[s.Key()]; ok && v <= last {
							t.Errorf("key %s: %d after %d", s.Key(), v, last)
						}
						lastOf[s.Key()] = v
						seen[string(body)]++
					}
					mu.Unlock()
					if err := cons.Ack(s); err != nil {
						t.Errorf("ack: %v", err)
					}
				}
			})
		}
		wg.Wait()
		if bigs != 1 || len(seen) != n {
			t.Fatalf("received the big message %d times and %d of %d small ones", bigs, len(seen), n)
		}
		for k, v := range seen {
			if v != 1 {
				t.Errorf("message %s received %d times", k, v)
			}
		}
	})
}

// failingReader yields n bytes of data and then fails.
type failingReader struct {
	data []byte
	n    int
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, errors.New("disk on fire")
	}
	k := copy(p[:min(len(p), r.n)], r.data)
	r.data, r.n = r.data[k:], r.n-k
	return k, nil
}

// TestStreamSenderFails: a SendReader whose reader fails in the middle
// leaves an incomplete chunked message; a streaming consumer never reads
// it to EOF (its Read fails with ErrStreamBroken once the producer's next
// message shows it will not be completed, or it is withdrawn before it is
// handed out), gets the next message next,
// and, under ChunkAck, the incomplete one is acknowledged and never
// delivered again.
func TestStreamSenderFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, c := streamStub(t)
		topic := testTopic(t)
		o := streamOpts(topic, "s")
		o.IncompleteChunkPolicy = ChunkAck
		cons, err := c.Subscribe(o)
		if err != nil {
			t.Fatal(err)
		}
		defer cons.Close()
		p := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true})
		big := payloadOf(2<<20, 4)
		_, err = p.SendReader(ctxFor(t, 30*time.Second), &ProducerMessage{}, &failingReader{data: big, n: 1 << 20}, int64(len(big)))
		if err == nil {
			t.Fatal("SendReader of a failing reader succeeded")
		}
		after, err := p.Send(ctxFor(t, 10*time.Second), &ProducerMessage{Payload: []byte("after")})
		if err != nil {
			t.Fatal(err)
		}
		s, err := cons.ReceiveStream(ctxFor(t, 30*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if s.Size() == int64(len(big)) {
			// Handed out before "after" arrived: its Read fails. (Had it
			// still been queued, it would have been withdrawn.)
			if n, err := io.Copy(io.Discard, s); !errors.Is(err, ErrStreamBroken) {
				t.Fatalf("the incomplete message read %d bytes: %v, want ErrStreamBroken", n, err)
			}
			if s, err = cons.ReceiveStream(ctxFor(t, 30*time.Second)); err != nil {
				t.Fatal(err)
			}
		}
		if got := readStream(t, s); string(got) != "after" {
			t.Fatalf("next message %q", got)
		}
		if err := cons.Ack(s); err != nil {
			t.Fatal(err)
		}
		waitAckedThrough(t, b, topic, "s", after)
		if m, err := cons.ReceiveStream(ctxFor(t, 5*time.Second)); err == nil {
			t.Fatalf("delivered after everything was acknowledged: %v", m.ID())
		}
	})
}

// TestStreamNackMidStream: a Nack of a stream whose chunks are still
// coming gives it back: its Read fails with ErrStreamBroken and it comes
// again whole.
func TestStreamNackMidStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, c := streamStub(t)
		topic := testTopic(t)
		cons, err := c.Subscribe(streamOpts(topic, "s"))
		if err != nil {
			t.Fatal(err)
		}
		defer cons.Close()
		p := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true})
		big := payloadOf(2<<20, 8)
		sent := sendAsync(t, p, &ProducerMessage{}, big)
		s, err := cons.ReceiveStream(ctxFor(t, 30*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(s, make([]byte, 100<<10)); err != nil {
			t.Fatal(err)
		}
		cons.Nack(s)
		if _, err := io.Copy(io.Discard, s); !errors.Is(err, ErrStreamBroken) {
			t.Fatalf("read after a Nack: %v, want ErrStreamBroken", err)
		}
		id := <-sent
		s, err = cons.ReceiveStream(ctxFor(t, 30*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if got := readStream(t, s); !bytes.Equal(got, big) || messageid.Compare(s.ID(), id) != 0 {
			t.Fatalf("after the Nack: %d bytes id %v, want id %v", len(got), s.ID(), id)
		}
		if err := cons.Ack(s); err != nil {
			t.Fatal(err)
		}
		waitAckedThrough(t, b, topic, "s", id)
	})
}
