package consumer

import (
	"testing"
	"testing/synctest"

	"github.com/pulsargo/sdk/internal/compress"
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
