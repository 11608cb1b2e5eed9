package pulsar

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/messageid"
)

// codecs are every compression type.
var codecs = []CompressionType{NoCompression, LZ4, ZLib, ZSTD, SNAPPY}

func codecName(c CompressionType) string {
	return [...]string{"NONE", "LZ4", "ZLIB", "ZSTD", "SNAPPY"}[c]
}

func TestProducerChunkedIDAndMetadata(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, MaxMessageSize: 64 << 10})
		c := testClient(t, b)
		topic := testTopic(t)
		rc := rawSubscribe(t, b, topic, 0)
		p := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true, DisableBatching: true})
		big := payloadOf(1<<20, 7)
		id, err := p.Send(ctxFor(t, 10*time.Second), &ProducerMessage{Payload: big, Key: "k", Properties: map[string]string{"p": "v"}})
		if err != nil {
			t.Fatal(err)
		}
		cid, ok := id.(ChunkMessageID)
		if !ok {
			t.Fatalf("Send returned %T %v, want a ChunkMessageID", id, id)
		}
		first, last := cid.FirstChunkID(), cid.LastChunkID()
		if messageid.Compare(first, last) >= 0 || first.PartitionIdx() != -1 || last.BatchIdx() != -1 {
			t.Errorf("chunk id %v", cid)
		}
		g := rc.wait(1, 10*time.Second)[0]
		if !g.Chunked || !bytes.Equal(g.Payload, big) || messageid.Compare(g.ID, id) != 0 {
			t.Fatalf("consumer got chunked=%v %d bytes id %v (sent %v)", g.Chunked, len(g.Payload), g.ID, id)
		}
		md := g.Meta
		n := md.GetNumChunksFromMsg()
		if md.GetUuid() != fmt.Sprintf("%s-0", p.Name()) || md.GetTotalChunkMsgSize() != 1<<20 ||
			md.GetUncompressedSize() != 1<<20 || md.GetPartitionKey() != "k" || n < 16 {
			t.Errorf("chunk metadata %v", md)
		}
		if first.EntryID()+int64(n)-1 != last.EntryID() {
			t.Errorf("first %v last %v for %d chunks", first, last, n)
		}
		if st := p.Stats(); st.ChunksSent != uint64(n) || st.MessagesSent != 1 || st.BytesSent != 1<<20 {
			t.Errorf("stats %+v, %d chunks", st, n)
		}
	})
}

// TestProducerChunkingEveryCodec sends small, chunked and small messages
// with every codec, with batching on and off, and checks that they arrive
// whole and in order, with the chunk fields set as Pulsar defines them.
func TestProducerChunkingEveryCodec(t *testing.T) {
	b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, MaxMessageSize: 128 << 10})
	c := testClient(t, b)
	for _, codec := range codecs {
		for _, batching := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/batching=%v", codecName(codec), batching), func(t *testing.T) {
				topic := testTopic(t)
				rc := rawSubscribe(t, b, topic, 0)
				p := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true, DisableBatching: !batching,
					CompressionType: codec})
				msgs := []*ProducerMessage{
					{Payload: []byte("before-1")}, {Payload: []byte("before-2")},
					{Payload: payloadOf(600<<10, 1)},
					{Payload: []byte("between")},
					{Payload: payloadOf(300<<10, 2), Key: "big"},
					{Payload: []byte("after")},
				}
				ids := sendAllAsync(t, p, msgs)
				got := rc.wait(len(msgs), 10*time.Second)
				for i, g := range got {
					if !bytes.Equal(g.Payload, msgs[i].Payload) {
						t.Fatalf("message %d: %d bytes differ", i, len(g.Payload))
					}
					if messageid.Compare(g.ID, ids[i]) != 0 {
						t.Errorf("message %d id %v, Send returned %v", i, g.ID, ids[i])
					}
					big := len(msgs[i].Payload) > 100<<10
					if g.Chunked != big {
						t.Errorf("message %d chunked=%v", i, g.Chunked)
					}
					if !big && batching != (g.Single != nil) {
						t.Errorf("message %d batched=%v", i, g.Single != nil)
					}
					if big {
						md := g.Meta
						if int(md.GetUncompressedSize()) != len(msgs[i].Payload) || md.GetCompression() != compressionOf(codec) {
							t.Errorf("message %d: uncompressed_size %d compression %v", i, md.GetUncompressedSize(), md.GetCompression())
						}
						if codec != NoCompression && int(md.GetTotalChunkMsgSize()) >= len(msgs[i].Payload) {
							t.Errorf("message %d: total_chunk_msg_size %d not compressed", i, md.GetTotalChunkMsgSize())
						}
					}
				}
				if c.mem.inUse() != 0 {
					t.Errorf("memory in use: %d", c.mem.inUse())
				}
			})
		}
	}
}

// TestProducerRefusesOverBrokerMaxWithoutEnableChunking: without
// EnableChunking a message larger than the broker's max message size fails
// with ErrMessageTooLarge (as the official client's does), with or without
// the memory limit, compressed or not; nothing reaches the topic. Smaller
// messages go as they are, and ChunkMaxMessageSize applies only with
// EnableChunking.
func TestProducerRefusesOverBrokerMaxWithoutEnableChunking(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, MaxMessageSize: 32 << 10})
		for _, limit := range []int64{0, -1} {
			for _, codec := range []CompressionType{NoCompression, LZ4} {
				c := testClient(t, b, ClientOptions{MemoryLimitBytes: limit})
				topic := testTopic(t)
				rc := rawSubscribe(t, b, topic, 0)
				p := testProducer(t, c, ProducerOptions{Topic: topic, ChunkMaxMessageSize: 1000, CompressionType: codec})
				id, err := p.Send(ctxFor(t, 10*time.Second), &ProducerMessage{Payload: payloadOf(100<<10, 3)})
				if !errors.Is(err, ErrMessageTooLarge) || id != nil {
					t.Fatalf("limit %d codec %d: 100 KiB over a 32 KiB broker limit with chunking off: %v %v", limit, codec, id, err)
				}
				if !strings.Contains(err.Error(), "EnableChunking") || !strings.Contains(err.Error(), "32768") {
					t.Errorf("error does not say what to change: %v", err)
				}
				small, err := p.Send(ctxFor(t, 10*time.Second), &ProducerMessage{Payload: payloadOf(5000, 4)})
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := small.(ChunkMessageID); ok {
					t.Errorf("5000 bytes chunked although EnableChunking is off")
				}
				g := rc.wait(1, 10*time.Second)
				if g[0].Meta.GetNumChunksFromMsg() != 0 || len(g[0].Payload) != 5000 {
					t.Errorf("got %v, want the small message only", g[0].Meta)
				}
				c.Close()
			}
		}
	})
}

// TestProducerManyChunksFewPermits: a message of 50 chunks with
// MaxPendingMessages 5 goes through (the official client hangs), several
// at once too.
func TestProducerManyChunksFewPermits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, MaxMessageSize: 64 << 10})
		c := testClient(t, b)
		topic := testTopic(t)
		rc := rawSubscribe(t, b, topic, 0)
		p := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true, ChunkMaxMessageSize: 10_000,
			MaxPendingMessages: 5, SendTimeout: 10 * time.Second})
		var msgs []*ProducerMessage
		for i := range 8 {
			msgs = append(msgs, &ProducerMessage{Payload: payloadOf(500_000, byte(i))})
		}
		ids := sendAllAsync(t, p, msgs)
		got := rc.wait(len(msgs), 10*time.Second)
		for i, g := range got {
			if n := g.Meta.GetNumChunksFromMsg(); n != 50 || !bytes.Equal(g.Payload, msgs[i].Payload) {
				t.Errorf("message %d: %d chunks", i, n)
			}
			if messageid.Compare(g.ID, ids[i]) != 0 {
				t.Errorf("message %d: id %v vs %v", i, g.ID, ids[i])
			}
		}
		if st := p.Stats(); st.ChunksSent != 400 || st.PendingMessages != 0 {
			t.Errorf("stats %+v", st)
		}
	})
}

// TestProducerBrokerErrorMidMessage: the broker refuses chunk 2 of a
// chunked message; the whole message fails once, everything it held is
// released and the producer goes on.
func TestProducerBrokerErrorMidMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, MaxMessageSize: 32 << 10})
		c := testClient(t, b)
		topic := testTopic(t)
		rc := rawSubscribe(t, b, topic, 0)
		rc.mu.Lock()
		rc.lenient = true
		rc.mu.Unlock()
		p := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true, MaxPendingMessages: 2})
		var sends atomic.Int32
		b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
			if ev.Type == "SEND" && ev.Dir == brokerstub.Inbound && sends.Add(1) == 3 {
				return brokerstub.Action{Fail: true, FailWith: "PersistenceError"}
			}
			return brokerstub.Action{}
		})
		var calls atomic.Int32
		var once sync.WaitGroup
		once.Add(1)
		var sendErr error
		p.SendAsync(ctxFor(t, 10*time.Second), &ProducerMessage{Payload: payloadOf(200<<10, 1)}, func(_ MessageID, _ *ProducerMessage, err error) {
			if calls.Add(1) == 1 {
				sendErr = err
				once.Done()
			}
		})
		once.Wait()
		var se *ServerError
		if !errors.As(sendErr, &se) || se.Code != "PersistenceError" || !IsRetriable(sendErr) {
			t.Fatalf("mid-message failure: %v", sendErr)
		}
		ok := payloadOf(100<<10, 2)
		if _, err := p.Send(ctxFor(t, 10*time.Second), &ProducerMessage{Payload: ok}); err != nil {
			t.Fatalf("producer unusable after a failed message: %v", err)
		}
		got := rc.wait(1, 10*time.Second)
		if !bytes.Equal(got[0].Payload, ok) {
			t.Errorf("received %d bytes", len(got[0].Payload))
		}
		synctest.Wait() // the bubble is idle: a second callback would have run
		if n := calls.Load(); n != 1 {
			t.Errorf("callback ran %d times", n)
		}
		st := p.Stats()
		if st.Errors != 1 || st.MessagesSent != 1 || st.PendingMessages != 0 || st.PendingBytes != 0 || c.mem.inUse() != 0 {
			t.Errorf("stats %+v, memory %d", st, c.mem.inUse())
		}
	})
}

// TestProducerSendTimeoutMidMessage: receipts stop after chunk 1; the
// message fails with ErrSendTimeout once, releases what it held, and the
// next message goes through.
func TestProducerSendTimeoutMidMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, MaxMessageSize: 32 << 10})
		c := testClient(t, b)
		topic := testTopic(t)
		p := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true, SendTimeout: 300 * time.Millisecond})
		var receipts atomic.Int32
		b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
			if ev.Type == "SEND_RECEIPT" {
				if seq, _ := seqOf(ev); seq == 0 && receipts.Add(1) > 2 {
					return brokerstub.Action{Drop: true}
				}
			}
			return brokerstub.Action{}
		})
		start := time.Now()
		_, err := p.Send(ctxFor(t, 10*time.Second), &ProducerMessage{Payload: payloadOf(200<<10, 1)})
		if !errors.Is(err, ErrSendTimeout) {
			t.Fatalf("err = %v", err)
		}
		if d := time.Since(start); d < 300*time.Millisecond { // bubble time: exact
			t.Errorf("timed out after %v", d)
		}
		if st := p.Stats(); st.ChunksSent != 2 || st.Errors != 1 || st.PendingBytes != 0 || st.PendingMessages != 0 {
			t.Errorf("stats %+v", st)
		}
		if c.mem.inUse() != 0 {
			t.Errorf("memory in use %d", c.mem.inUse())
		}
		if _, err := p.Send(ctxFor(t, 10*time.Second), &ProducerMessage{Payload: payloadOf(100<<10, 2)}); err != nil {
			t.Fatalf("next message: %v", err)
		}
	})
}

// TestProducerSendTimeout: receipts never come; every message fails once
// with ErrSendTimeout, batched or not.
func TestProducerSendTimeout(t *testing.T) {
	for _, batching := range []bool{true, false} {
		t.Run(fmt.Sprintf("batching=%v", batching), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
				c := testClient(t, b)
				topic := testTopic(t)
				p := testProducer(t, c, ProducerOptions{Topic: topic, SendTimeout: 200 * time.Millisecond, DisableBatching: !batching})
				b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
					return brokerstub.Action{Drop: ev.Type == "SEND_RECEIPT"}
				})
				defer b.Intercept(nil)
				const n = 20
				errs := make(chan error, 2*n)
				for range n {
					p.SendAsync(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: []byte("x")}, func(_ MessageID, _ *ProducerMessage, err error) {
						errs <- err
					})
				}
				for range n {
					select {
					case err := <-errs:
						if !errors.Is(err, ErrSendTimeout) {
							t.Fatalf("err = %v", err)
						}
					case <-time.After(5 * time.Second): // bubble time: only when nothing else can happen
						t.Fatal("no timeout")
					}
				}
				synctest.Wait() // every goroutine of the bubble idle: no callback is on its way
				if len(errs) != 0 {
					t.Errorf("extra callbacks")
				}
				if st := p.Stats(); st.Errors != n || st.PendingMessages != 0 || st.PendingBytes != 0 {
					t.Errorf("stats %+v", st)
				}
			})
		})
	}
}
