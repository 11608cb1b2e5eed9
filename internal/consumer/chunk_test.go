package consumer

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/consumer/consumertest"
	"github.com/pulsargo/sdk/messageid"
)

// sendInterleaved sends the chunks of two messages as a0 b0 a1 b1 ... and
// returns every entry id in send order.
func sendInterleaved(t *testing.T, p *consumertest.Producer, a, b []consumertest.Chunk) []messageid.ID {
	t.Helper()
	var ids []messageid.ID
	for i := range max(len(a), len(b)) {
		for _, cs := range [][]consumertest.Chunk{a, b} {
			if i < len(cs) {
				id, err := p.SendRaw(ctxT(t), cs[i].Meta, cs[i].Payload)
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
		}
	}
	return ids
}

func TestChunkedInterleavedCompressed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		pa, pb := pattern(5000, 1), noise(3000, 2)
		ca, _ := p.Chunks(pa, 1000, compress.NONE)
		cb, _ := p.Chunks(pb, 700, compress.ZLIB)
		ids := sendInterleaved(t, p, ca, cb)
		e, out := v.engine(topic, "s", nil)
		got := recvN(t, out, 2)
		// b completes first only if it has fewer chunks; order is completion order.
		for _, m := range got {
			c, ok := m.ID.(messageid.ChunkMessageID)
			if !ok {
				t.Fatalf("id %T, want a chunk id", m.ID)
			}
			switch len(m.Payload) {
			case len(pa):
				sameBytes(t, m.Payload, pa)
			case len(pb):
				sameBytes(t, m.Payload, pb)
			default:
				t.Fatalf("payload of %d bytes", len(m.Payload))
			}
			if c.FirstChunkID().PartitionIdx() != -1 {
				t.Errorf("partition %d", c.FirstChunkID().PartitionIdx())
			}
			if err := e.Ack(ctxT(t), m.ID); err != nil {
				t.Fatal(err)
			}
		}
		v.waitCursor(topic, "s", ackedThrough(ids[len(ids)-1]))
	})
}

// TestAckDeserializedChunkIDAcksOnlyItsChunks: a new consumer acknowledges
// a chunk id it never delivered (deserialized from storage); every chunk of
// that message gets acknowledged when it is redelivered, and a plain
// message between its chunks is not.
func TestAckDeserializedChunkIDAcksOnlyItsChunks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		cs, _ := p.Chunks(pattern(3000, 5), 1000, compress.NONE)
		var chunkIDs []messageid.ID
		var plain messageid.ID
		for i, c := range cs {
			id, err := p.SendRaw(ctxT(t), c.Meta, c.Payload)
			if err != nil {
				t.Fatal(err)
			}
			chunkIDs = append(chunkIDs, id)
			if i == 0 {
				if plain, err = p.Send(ctxT(t), []byte("between"), ""); err != nil {
					t.Fatal(err)
				}
			}
		}
		e1, out1 := v.engine(topic, "s", nil)
		first := recvN(t, out1, 2)
		serialized := first[1].ID.Serialize()
		if _, ok := first[1].ID.(messageid.ChunkMessageID); !ok {
			t.Fatalf("second message %v is not chunked", first[1].ID)
		}
		e1.Close()

		id, err := messageid.Deserialize(serialized)
		if err != nil {
			t.Fatal(err)
		}
		e2, out2 := v.engine(topic, "s", nil)
		if err := e2.Ack(ctxT(t), id); err != nil {
			t.Fatal(err)
		}
		// The plain message comes again (unacknowledged); the chunked one not.
		m := recv(t, out2)
		if string(m.Payload) != "between" {
			t.Fatalf("got %q", trim(m.Payload))
		}
		expectNone(t, out2, 100*time.Millisecond)
		cur := v.waitCursor(topic, "s", func(c brokerstub.CursorState) bool {
			return len(c.Ranges) == 1
		})
		want := [2]brokerstub.Position{{Ledger: chunkIDs[1].LedgerID(), Entry: chunkIDs[1].EntryID()},
			{Ledger: chunkIDs[2].LedgerID(), Entry: chunkIDs[2].EntryID()}}
		if cur.MarkDelete.Entry != chunkIDs[0].EntryID() || cur.Ranges[0] != want {
			t.Fatalf("cursor %+v: want chunks %v acknowledged, %v not", cur, chunkIDs, plain)
		}
		if err := e2.Ack(ctxT(t), m.ID); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", ackedThrough(chunkIDs[2]))
	})
}

// TestAckProducerChunkIDBeforeDelivery: an id returned by a producer acks
// the message when it arrives; nothing is delivered.
func TestAckProducerChunkIDBeforeDelivery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		e, out := v.engine(topic, "s", nil)
		// Hold deliveries back until the ack is recorded.
		v.b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
			return brokerstub.Action{Drop: ev.Dir == brokerstub.Outbound && ev.Type == "MESSAGE"}
		})
		p := v.producer(topic)
		id, ids, err := p.SendChunked(ctxT(t), pattern(2500, 1), 1000, compress.NONE)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Ack(ctxT(t), id); err != nil {
			t.Fatal(err)
		}
		v.b.Intercept(nil)
		if err := v.b.Unload(topic); err != nil { // redelivers what was dropped
			t.Fatal(err)
		}
		expectNone(t, out, 200*time.Millisecond)
		v.waitCursor(topic, "s", ackedThrough(ids[len(ids)-1]))
	})
}

func TestEvictionNacksAndRedelivers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		pa, pb := pattern(3000, 1), pattern(3000, 2)
		ca, _ := p.Chunks(pa, 1000, compress.NONE)
		cb, _ := p.Chunks(pb, 1000, compress.NONE)
		ids := sendInterleaved(t, p, ca, cb)
		e, out := v.engine(topic, "s", func(o *Options[*Message]) {
			o.Chunks.MaxPendingMessages = 1
			o.NackDelay = 20 * time.Millisecond
		})
		got := recvN(t, out, 2)
		sameBytes(t, got[0].Payload, pb) // a was evicted by b
		sameBytes(t, got[1].Payload, pa) // and redelivered whole
		for _, m := range got {
			if err := e.Ack(ctxT(t), m.ID); err != nil {
				t.Fatal(err)
			}
		}
		v.waitCursor(topic, "s", ackedThrough(ids[len(ids)-1]))
	})
}

func TestEvictionChunkAckDropsMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		pa, pb := pattern(3000, 1), pattern(3000, 2)
		ca, _ := p.Chunks(pa, 1000, compress.NONE)
		cb, _ := p.Chunks(pb, 1000, compress.NONE)
		ids := sendInterleaved(t, p, ca, cb)
		e, out := v.engine(topic, "s", func(o *Options[*Message]) {
			o.Chunks.MaxPendingBytes = 4000 // room for one message
			o.AckIncompleteChunks = true
		})
		m := recv(t, out)
		sameBytes(t, m.Payload, pb)
		if err := e.Ack(ctxT(t), m.ID); err != nil {
			t.Fatal(err)
		}
		expectNone(t, out, 100*time.Millisecond)
		v.waitCursor(topic, "s", ackedThrough(ids[len(ids)-1]))
	})
}

// pending returns the number of incomplete chunked messages.
func pending(e *Engine[*Message]) int {
	var n int
	_ = e.call(func() { n, _ = e.asm.Pending() })
	return n
}

// waitFor waits, in a synctest bubble, until every goroutine of the engine
// and the broker is idle, and fails unless ok holds then: what the test
// waits for needs no time to pass.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	synctest.Wait()
	if !ok() {
		t.Fatalf("not so once idle: %s", what)
	}
}

func TestExpiryNacksWithFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		clock := brokerstub.NewFakeClock(time.Now())
		cs, _ := p.Chunks(pattern(2000, 9), 1000, compress.NONE)
		if _, err := p.SendRaw(ctxT(t), cs[0].Meta, cs[0].Payload); err != nil {
			t.Fatal(err)
		}
		e, out := v.engine(topic, "s", func(o *Options[*Message]) {
			o.Clock = clock
			o.NackDelay = time.Second
			o.Chunks.ExpireAfter = time.Minute
		})
		waitFor(t, "chunk 0 pending", func() bool { return pending(e) == 1 })
		clock.Advance(61 * time.Second)
		waitFor(t, "expiry", func() bool { return pending(e) == 0 })
		clock.Advance(2 * time.Second) // the nack delay: chunk 0 is redelivered
		waitFor(t, "redelivered chunk 0", func() bool { return pending(e) == 1 })
		if _, err := p.SendRaw(ctxT(t), cs[1].Meta, cs[1].Payload); err != nil {
			t.Fatal(err)
		}
		sameBytes(t, recv(t, out).Payload, pattern(2000, 9))
	})
}

func TestExpiryChunkAckWithFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		clock := brokerstub.NewFakeClock(time.Now())
		cs, _ := p.Chunks(pattern(2000, 9), 1000, compress.NONE)
		if _, err := p.SendRaw(ctxT(t), cs[0].Meta, cs[0].Payload); err != nil {
			t.Fatal(err)
		}
		e, out := v.engine(topic, "s", func(o *Options[*Message]) {
			o.Clock = clock
			o.AckIncompleteChunks = true
			o.Chunks.ExpireAfter = time.Minute
		})
		waitFor(t, "chunk 0 pending", func() bool { return pending(e) == 1 })
		clock.Advance(61 * time.Second)
		waitFor(t, "expiry", func() bool { return pending(e) == 0 })
		last, err := p.SendRaw(ctxT(t), cs[1].Meta, cs[1].Payload)
		if err != nil {
			t.Fatal(err)
		}
		expectNone(t, out, 50*time.Millisecond)
		v.waitCursor(topic, "s", ackedThrough(last))
	})
}

// TestChunkRedeliveredAfterReconnect: chunks that arrive again after a
// reconnect are not a corruption; the message is delivered once.
func TestChunkRedeliveredAfterReconnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		payload := pattern(3000, 4)
		cs, _ := p.Chunks(payload, 1000, compress.NONE)
		for _, c := range cs[:2] {
			if _, err := p.SendRaw(ctxT(t), c.Meta, c.Payload); err != nil {
				t.Fatal(err)
			}
		}
		e, out := v.engine(topic, "s", nil)
		waitFor(t, "two chunks", func() bool {
			var n int
			_ = e.call(func() { _, b := e.asm.Pending(); n = int(b) })
			return n == 3000 && len(v.b.Addr()) > 0
		})
		if err := v.b.Unload(topic); err != nil {
			t.Fatal(err)
		}
		p2 := v.producer(topic)
		last, err := p2.SendRaw(ctxT(t), cs[2].Meta, cs[2].Payload)
		if err != nil {
			t.Fatal(err)
		}
		m := recv(t, out)
		sameBytes(t, m.Payload, payload)
		expectNone(t, out, 100*time.Millisecond)
		if err := e.Ack(ctxT(t), m.ID); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", ackedThrough(last))
	})
}

func TestNackRedeliversWholeChunkedMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		payload := noise(3000, 6)
		_, ids, err := p.SendChunked(ctxT(t), payload, 1000, compress.LZ4)
		if err != nil {
			t.Fatal(err)
		}
		e, out := v.engine(topic, "s", func(o *Options[*Message]) { o.NackDelay = 10 * time.Millisecond })
		m := recv(t, out)
		e.Nack(m.ID)
		m2 := recv(t, out)
		sameBytes(t, m2.Payload, payload)
		if m2.RedeliveryCount != 1 || !slices.Equal(payloads([]*Message{m}), payloads([]*Message{m2})) {
			t.Fatalf("redelivery count %d", m2.RedeliveryCount)
		}
		if err := e.Ack(ctxT(t), m2.ID); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", ackedThrough(ids[len(ids)-1]))
	})
}

func TestAckTimeoutRedeliversWholeChunkedMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		payload := noise(3000, 12)
		_, ids, err := p.SendChunked(ctxT(t), payload, 1000, compress.NONE)
		if err != nil {
			t.Fatal(err)
		}
		e, out := v.engine(topic, "s", func(o *Options[*Message]) { o.AckTimeout = 30 * time.Millisecond })
		recv(t, out) // not acknowledged
		m := recv(t, out)
		sameBytes(t, m.Payload, payload)
		if m.RedeliveryCount != 1 {
			t.Fatalf("redelivery count %d", m.RedeliveryCount)
		}
		if err := e.Ack(ctxT(t), m.ID); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", ackedThrough(ids[len(ids)-1]))
		expectNone(t, out, 100*time.Millisecond)
	})
}
