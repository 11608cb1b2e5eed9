package pulsar

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/consumer/consumertest"
	"github.com/pulsargo/sdk/internal/topicname"
	"github.com/pulsargo/sdk/messageid"
)

func TestConsumerChunkedFromSDKProducer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t, brokerstub.Options{MaxMessageSize: 64 << 10})
		topic := csTopic()
		c := v.subscribe(ConsumerOptions{Topic: topic})
		prod, err := v.c.CreateProducer(ProducerOptions{Topic: topic, EnableChunking: true, DisableBatching: true})
		if err != nil {
			t.Fatal(err)
		}
		defer prod.Close()
		big := csNoise(1<<20, 1)
		id, err := prod.Send(csCtx(t), &ProducerMessage{Payload: big, Key: "k"})
		if err != nil {
			t.Fatal(err)
		}
		m := csRecv(t, c)
		csSame(t, m.Payload(), big)
		cid, ok := m.ID().(ChunkMessageID)
		if !ok || !messageid.Equal(cid, id) || m.Key() != "k" {
			t.Fatalf("id %v (%T), producer said %v", m.ID(), m.ID(), id)
		}
		if err := c.Ack(m); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", allAcked(id))
	})
}

// TestConsumerAckIDFromProducerSend: the id a producer returns for a
// chunked message acknowledges every chunk, whether the message is queued
// or has not arrived yet; it is not delivered.
func TestConsumerAckIDFromProducerSend(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t, brokerstub.Options{MaxMessageSize: 64 << 10})
		topic := csTopic()
		c := v.subscribe(ConsumerOptions{Topic: topic})
		prod, err := v.c.CreateProducer(ProducerOptions{Topic: topic, EnableChunking: true, DisableBatching: true})
		if err != nil {
			t.Fatal(err)
		}
		defer prod.Close()
		id, err := prod.Send(csCtx(t), &ProducerMessage{Payload: csNoise(300<<10, 2)})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AckID(id); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", allAcked(id))
		csNone(t, c, 100*time.Millisecond)
	})
}

// TestConsumerAckDeserializedChunkID: a chunk id stored as bytes and read
// back acknowledges every chunk, by the consumer that received it and by a
// new one after a restart; a message between the chunks stays.
func TestConsumerAckDeserializedChunkID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p := v.raw(topic, -1)
		big := csNoise(3000, 3)
		cs, _ := p.Chunks(big, 1000, compress.NONE)
		var ids []messageid.ID
		for i, ch := range cs {
			id, err := p.SendRaw(csCtx(t), ch.Meta, ch.Payload)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
			if i == 1 {
				_, _ = p.Send(csCtx(t), []byte("between"), "")
			}
		}
		c1 := v.subscribe(ConsumerOptions{Topic: topic})
		first := csRecvN(t, c1, 2)
		if got := csNames(first); !slices.Equal(got, []string{"between", "BIG"}) {
			t.Fatalf("got %v", got)
		}
		stored := first[1].ID().Serialize()
		c1.Close()

		c2 := v.subscribe(ConsumerOptions{Topic: topic})
		back, err := DeserializeMessageID(stored)
		if err != nil {
			t.Fatal(err)
		}
		if err := c2.AckID(back); err != nil {
			t.Fatal(err)
		}
		m := csRecv(t, c2)
		if string(m.Payload()) != "between" {
			t.Fatalf("got %q", m.Payload())
		}
		csNone(t, c2, 100*time.Millisecond)
		// Every chunk acknowledged, "between" (entry 2) not.
		v.waitCursor(topic, "s", func(c brokerstub.CursorState) bool {
			return c.MarkDelete.Entry == ids[1].EntryID() && len(c.Ranges) == 1 && c.Ranges[0][0].Entry == ids[2].EntryID()
		})
		if err := c2.Ack(m); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", allAcked(ids[2]))

		// The same consumer: it received the message, then acks it by the
		// deserialized id.
		big2 := csNoise(3000, 4)
		id2, _, err := p.SendChunked(csCtx(t), big2, 1000, compress.ZSTD)
		if err != nil {
			t.Fatal(err)
		}
		m2 := csRecv(t, c2)
		csSame(t, m2.Payload(), big2)
		back2, _ := DeserializeMessageID(m2.ID().Serialize())
		if err := c2.AckID(back2); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", allAcked(id2))
	})
}

// TestConsumerSeekChunkIDOnPartitionedTopic: seeking a partitioned
// consumer (which the official Go client refuses) to a chunk id delivers
// that whole message again, inclusive or not, and nothing before it.
func TestConsumerSeekChunkIDOnPartitionedTopic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, inclusive := range []bool{true, false} {
			v := newCSEnv(t)
			topic := csTopic()
			if err := v.b.CreatePartitionedTopic(topic, 2); err != nil {
				t.Fatal(err)
			}
			part := topicname.PartitionName(topic, 1)
			p := v.raw(part, 1)
			_, _ = p.Send(csCtx(t), []byte("m-0"), "")
			big := csNoise(5000, 5)
			_, _, err := p.SendChunked(csCtx(t), big, 1000, compress.NONE)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = p.Send(csCtx(t), []byte("m-2"), "")
			c := v.subscribe(ConsumerOptions{Topic: topic, StartMessageIDInclusive: inclusive})
			msgs := csRecvN(t, c, 3)
			for _, m := range msgs {
				_ = c.Ack(m)
			}
			chunkID, err := DeserializeMessageID(msgs[1].ID().Serialize())
			if err != nil {
				t.Fatal(err)
			}
			if chunkID.PartitionIdx() != 1 {
				t.Fatalf("partition %d", chunkID.PartitionIdx())
			}
			if err := c.Seek(chunkID); err != nil {
				t.Fatal(err)
			}
			got := csRecvN(t, c, 2)
			if !slices.Equal(csNames(got), []string{"BIG", "m-2"}) {
				t.Fatalf("inclusive=%v: after seek %v", inclusive, csNames(got))
			}
			csSame(t, got[0].Payload(), big)
			csNone(t, c, 50*time.Millisecond)
		}
	})
}

func TestConsumerNackRedeliversWholeChunkedMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p := v.raw(topic, -1)
		big := csNoise(4000, 6)
		id, _, _ := p.SendChunked(csCtx(t), big, 1000, compress.NONE)
		c := v.subscribe(ConsumerOptions{Topic: topic, NackRedeliveryDelay: 10 * time.Millisecond})
		c.Nack(csRecv(t, c))
		m := csRecv(t, c)
		csSame(t, m.Payload(), big)
		if m.RedeliveryCount() != 1 {
			t.Fatalf("redelivery count %d", m.RedeliveryCount())
		}
		_ = c.Ack(m)
		v.waitCursor(topic, "s", allAcked(id))
	})
}

// TestConsumerIncompleteChunkPolicies: an incomplete chunked message that
// expires is redelivered by default and dropped with AutoAckIncompleteChunk.
func TestConsumerIncompleteChunkPolicies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, autoAck := range []bool{false, true} {
			v := newCSEnv(t)
			topic := csTopic()
			p := v.raw(topic, -1)
			big := csNoise(2000, 7)
			cs, _ := p.Chunks(big, 1000, compress.NONE)
			_, _ = p.SendRaw(csCtx(t), cs[0].Meta, cs[0].Payload)
			c := v.subscribe(ConsumerOptions{Topic: topic, ExpireTimeOfIncompleteChunk: 50 * time.Millisecond,
				NackRedeliveryDelay: 200 * time.Millisecond, AutoAckIncompleteChunk: autoAck})
			time.Sleep(150 * time.Millisecond) // what is tested: chunk 0 expires after 50 ms (bubble time)
			last, _ := p.SendRaw(csCtx(t), cs[1].Meta, cs[1].Payload)
			if autoAck {
				csNone(t, c, 300*time.Millisecond)
				v.waitCursor(topic, "s", allAcked(last))
				continue
			}
			m := csRecv(t, c) // chunk 0 redelivered after the nack delay, then chunk 1 again
			csSame(t, m.Payload(), big)
			_ = c.Ack(m)
			v.waitCursor(topic, "s", allAcked(last))
		}
	})
}

// TestConsumerMaxPendingChunkedBytes: the chunks of two 3,000-byte messages
// arrive interleaved (a0 b0 a1 b1 a2 b2) at a consumer whose
// MaxPendingChunkedBytes leaves room for one of them. b0 evicts a, which
// AutoAckIncompleteChunk drops; b arrives whole, and nothing of a follows.
// With the default budget (256 MiB) a would be delivered first.
func TestConsumerMaxPendingChunkedBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p := v.raw(topic, -1)
		a, b := csNoise(3000, 1), csNoise(3000, 2)
		ca, _ := p.Chunks(a, 1000, compress.NONE)
		cb, _ := p.Chunks(b, 1000, compress.NONE)
		var last MessageID
		for i := range ca {
			for _, c := range [][]consumertest.Chunk{ca, cb} {
				id, err := p.SendRaw(csCtx(t), c[i].Meta, c[i].Payload)
				if err != nil {
					t.Fatal(err)
				}
				last = id
			}
		}
		c := v.subscribe(ConsumerOptions{Topic: topic, MaxPendingChunkedBytes: 4000, AutoAckIncompleteChunk: true})
		m := csRecv(t, c)
		csSame(t, m.Payload(), b)
		if err := c.Ack(m); err != nil {
			t.Fatal(err)
		}
		csNone(t, c, 300*time.Millisecond)
		v.waitCursor(topic, "s", allAcked(last))
	})
}
