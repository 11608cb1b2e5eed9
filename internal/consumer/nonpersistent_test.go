package consumer

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/messageid"
)

// TestNonPersistentChunkedMessageAfterAcks: on a non-persistent topic the
// broker gives every message the id 0:0, so the engine's tracking by
// position cannot tell two messages apart. Acknowledging two chunked
// messages made the second ack find nothing tracked under 0:0 and wait
// for "its" message, and the next chunked message (first chunk 0:0 too)
// was then taken for it: acknowledged and dropped, never delivered.
func TestNonPersistentChunkedMessageAfterAcks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := "non-persistent://public/default/engine-np"
		p := v.producer(topic)
		e, out := v.engine(topic, "s", nil)
		synctest.Wait() // the engine's FLOW reached the broker: nothing sent from now on is dropped
		send := func(seed byte) []byte {
			payload := pattern(3000, seed)
			cs, err := p.Chunks(payload, 1000, compress.NONE)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cs {
				if _, err := p.SendRaw(ctxT(t), c.Meta, c.Payload); err != nil {
					t.Fatal(err)
				}
			}
			return payload
		}
		first, second := send(1), send(2)
		synctest.Wait()
		for _, want := range [][]byte{first, second} {
			m := recv(t, out)
			sameBytes(t, m.Payload, want)
			if err := e.Ack(ctxT(t), m.ID); err != nil {
				t.Fatal(err)
			}
		}
		third := send(3)
		sameBytes(t, recv(t, out).Payload, third)
	})
}

// TestNonPersistentBatchIndexAcks: batches of different sizes, all at
// 0:0; acknowledging the last message of a bigger batch once a smaller
// one arrived was refused as an unknown batch index (checked against the
// smaller batch).
func TestNonPersistentBatchIndexAcks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := "non-persistent://public/default/engine-np-batch"
		p := v.producer(topic)
		e, out := v.engine(topic, "s", func(o *Options[*Message]) { o.BatchIndexAck = true })
		synctest.Wait()
		for _, n := range []int{5, 2} {
			batch := make([][]byte, n)
			for i := range batch {
				batch[i] = []byte{byte('a' + i)}
			}
			if _, err := p.SendBatch(ctxT(t), batch, compress.NONE); err != nil {
				t.Fatal(err)
			}
		}
		msgs := recvN(t, out, 7) // both batches arrived before the first ack
		// Out of order, as a Shared consumer's workers ack: the last of the
		// batch of 5 first.
		msgs[0], msgs[4] = msgs[4], msgs[0]
		for _, m := range msgs {
			if err := e.Ack(ctxT(t), m.ID); err != nil {
				t.Fatalf("ack %v: %v", m.ID, err)
			}
		}
	})
}

// TestNonPersistentSeekToMessageID: a seek to a message's id on a
// non-persistent topic (where every id is 0:0) left a filter that took
// every later message, also 0:0, for one before the seek point and
// dropped it.
func TestNonPersistentSeekToMessageID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := "non-persistent://public/default/engine-np-seek"
		p := v.producer(topic)
		e, out := v.engine(topic, "s", nil)
		synctest.Wait()
		if _, err := p.Send(ctxT(t), []byte("first"), ""); err != nil {
			t.Fatal(err)
		}
		m := recv(t, out)
		if err := e.Seek(ctxT(t), m.ID); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // subscribed again, with permits
		if _, err := p.Send(ctxT(t), []byte("after"), ""); err != nil {
			t.Fatal(err)
		}
		if got := recv(t, out); string(got.Payload) != "after" {
			t.Fatalf("got %q", got.Payload)
		}
	})
}

// TestNonPersistentReader: a reader of a non-persistent topic, started at
// the latest or the earliest message, gets what is published, also after
// the broker unloads the topic and it subscribes again (its filter took
// every 0:0 message for one before its start, or for one it had handed out).
func TestNonPersistentReader(t *testing.T) {
	for _, start := range []messageid.ID{messageid.Latest(), messageid.Earliest()} {
		synctest.Test(t, func(t *testing.T) {
			v := newEnv(t)
			topic := "non-persistent://public/default/engine-np-reader"
			p := v.producer(topic)
			_, out := v.engine(topic, "r", func(o *Options[*Message]) {
				o.NonDurable, o.Reader, o.StartID = true, true, start
			})
			synctest.Wait()
			for _, payload := range []string{"one", "two"} {
				if _, err := p.Send(ctxT(t), []byte(payload), ""); err != nil {
					t.Fatal(err)
				}
				if got := recv(t, out); string(got.Payload) != payload {
					t.Fatalf("start %v: got %q, want %q", start, got.Payload, payload)
				}
			}
			if err := v.b.Unload(topic); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second) // in the bubble: the engine's reconnect backoff passes
			synctest.Wait()
			p = v.producer(topic) // the raw test producer does not reconnect
			if _, err := p.Send(ctxT(t), []byte("three"), ""); err != nil {
				t.Fatal(err)
			}
			if got := recv(t, out); string(got.Payload) != "three" {
				t.Fatalf("start %v, after the unload: got %q", start, got.Payload)
			}
		})
	}
}
