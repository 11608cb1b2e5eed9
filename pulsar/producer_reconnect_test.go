package pulsar

import (
	"bytes"
	"encoding/binary"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/messageid"
)

// TestProducerUnloadDuringChunkedSend unloads the topic while a chunked
// message is half acknowledged: the producer re-attaches (same name, next
// epoch), sends the remaining chunks, and the message arrives whole, with
// the messages around it, in order. In "fed" the message is 4 times the
// memory limit, uncompressed: its chunks are handed over as receipts free
// room, across the reconnect.
func TestProducerUnloadDuringChunkedSend(t *testing.T) {
	for _, tc := range []struct {
		name     string
		batching bool
		codec    CompressionType
		limit    int64
	}{{"plain", false, LZ4, 0}, {"batching", true, LZ4, 0}, {"fed", true, NoCompression, 256 << 10}} {
		batching := tc.batching
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, MaxMessageSize: 32 << 10})
				c := testClient(t, b, ClientOptions{MemoryLimitBytes: tc.limit})
				topic := testTopic(t)
				p := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true, DisableBatching: !batching,
					CompressionType: tc.codec})
				name := p.Name()
				var sends atomic.Int32
				unloaded := make(chan struct{})
				b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
					if ev.Type == "SEND" && sends.Add(1) == 5 {
						// Hold the fifth send back until the topic is unloaded:
						// the message is cut in the middle.
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
				msgs := []*ProducerMessage{{Payload: []byte("before")}, {Payload: payloadOf(1<<20, 9)}, {Payload: []byte("after")}}
				ids := sendAllAsync(t, p, msgs)
				<-unloaded
				if _, ok := ids[1].(ChunkMessageID); !ok {
					t.Fatalf("id %T", ids[1])
				}
				if p.Name() != name {
					t.Errorf("name changed from %q to %q", name, p.Name())
				}
				if st := p.Stats(); st.Reconnects < 1 || st.PendingMessages != 0 || st.MessagesSent != 3 {
					t.Errorf("stats %+v", st)
				}
				b.Intercept(nil)
				rc := rawSubscribe(t, b, topic, 0)
				// A message whose receipt the unload lost is sent again
				// (deduplication is off), so "before" may be stored twice:
				// repeats of the message just before are dropped.
				var got []got
				for n := 3; len(got) < 3; n++ {
					got = got[:0]
					for _, g := range rc.wait(n, 10*time.Second) {
						if len(got) == 0 || !bytes.Equal(got[len(got)-1].Payload, g.Payload) {
							got = append(got, g)
						}
					}
				}
				for i, g := range got[:3] {
					if !bytes.Equal(g.Payload, msgs[i].Payload) {
						t.Errorf("message %d: %d bytes differ", i, len(g.Payload))
					}
				}
				// The fifth send reached the broker after the unload, so the
				// message was cut: the chunks after the last receipt were sent
				// again, in the new ledger. (When the receipts of the first
				// chunks were lost with the connection, the whole message was
				// sent again, and the consumer restarted it from the new chunk
				// 0.) Either way the ids agree.
				gid, ok := got[1].ID.(ChunkMessageID)
				if !ok {
					t.Fatalf("message 1 arrived as %v, not chunked", got[1].ID)
				}
				sid := ids[1].(ChunkMessageID)
				if messageid.Compare(gid, sid) != 0 {
					t.Errorf("chunked id: consumer %v, Send %v", gid, sid)
				}
				// Ledger ids are unique in the broker, not numbered from 1 per
				// topic: the first ledger is the one "before" was first
				// stored in.
				if gid.LastChunkID().LedgerID() == got[0].ID.LedgerID() {
					t.Errorf("last chunk in the first ledger (%v): the unload did not cut the message", gid)
				}
			})
		})
	}
}

// TestProducerConnectionLossNoLoss closes the connection several times
// (and restarts the broker once) while many messages, some chunked, are in
// flight: every message arrives, whole, in send order (a chunk or message
// whose receipt was lost with the connection may arrive twice).
func TestProducerConnectionLossNoLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, MaxMessageSize: 64 << 10})
		c := testClient(t, b)
		topic := testTopic(t)
		p := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true, BatchingMaxMessages: 20,
			CompressionType: ZSTD, MaxPendingMessages: 50})
		var sends atomic.Int32
		midway := make(chan struct{}) // closed at the 25th SEND: time to restart
		b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
			if ev.Type == "SEND" {
				n := sends.Add(1)
				if n == 25 {
					close(midway)
				}
				if n == 7 || n == 40 || n == 90 {
					return brokerstub.Action{CloseConn: true}
				}
			}
			return brokerstub.Action{}
		})
		const n = 300
		msgs := make([]*ProducerMessage, n)
		for i := range msgs {
			size := 16
			if i%50 == 7 {
				size = 300 << 10 // chunked
			}
			pl := payloadOf(size, byte(i))
			binary.BigEndian.PutUint32(pl, uint32(i))
			msgs[i] = &ProducerMessage{Payload: pl}
		}
		done := make(chan []MessageID)
		go func() { done <- sendAllAsync(t, p, msgs) }()
		<-midway // restart with messages in flight
		if err := b.Restart(); err != nil {
			t.Fatal(err)
		}
		<-done
		b.Intercept(nil)
		rc := rawSubscribe(t, b, topic, 0)
		rc.wait(n, 15*time.Second)
		synctest.Wait() // the bubble is idle: duplicates, if any, have arrived
		got := rc.wait(rc.count(), time.Second)
		next := 0
		for _, g := range got {
			i := int(binary.BigEndian.Uint32(g.Payload))
			switch {
			case i == next:
				if !bytes.Equal(g.Payload, msgs[i].Payload) {
					t.Fatalf("message %d differs", i)
				}
				next++
			case i < next:
				// a duplicate from a resend
			default:
				t.Fatalf("message %d arrived before %d", i, next)
			}
		}
		if next != n {
			t.Fatalf("%d of %d messages arrived", next, n)
		}
		if st := p.Stats(); st.Reconnects < 2 || st.MessagesSent != n {
			t.Errorf("stats %+v", st)
		}
	})
}
