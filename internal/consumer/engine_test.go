package consumer

import (
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

func TestPlainMessagesAndAcks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		var ids []messageid.ID
		for i := range 5 {
			id, err := p.Send(ctxT(t), fmt.Appendf(nil, "m-%d", i), "")
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		e, out := v.engine(topic, "s", nil)
		msgs := recvN(t, out, 5)
		if got := payloads(msgs); !slices.Equal(got, []string{"m-0", "m-1", "m-2", "m-3", "m-4"}) {
			t.Fatalf("payloads %v", got)
		}
		for i, m := range msgs {
			if messageid.Compare(m.ID, ids[i]) != 0 || m.ID.PartitionIdx() != -1 {
				t.Errorf("id %v, want %v", m.ID, ids[i])
			}
			if err := e.Ack(ctxT(t), m.ID); err != nil {
				t.Fatal(err)
			}
		}
		v.waitCursor(topic, "s", ackedThrough(ids[4]))
	})
}

func TestCompressedMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		body := pattern(10000, 3)
		types := []compress.Type{compress.LZ4, compress.ZLIB, compress.ZSTD, compress.SNAPPY}
		for _, ct := range types {
			if _, err := p.SendCompressed(ctxT(t), body, ct); err != nil {
				t.Fatal(err)
			}
		}
		_, out := v.engine(topic, "s", nil)
		for range types {
			sameBytes(t, recv(t, out).Payload, body)
		}
	})
}

func TestBatchAckSetHonoured(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		bodies := [][]byte{[]byte("b-0"), []byte("b-1"), []byte("b-2"), []byte("b-3"), []byte("b-4")}
		entry, err := p.SendBatch(ctxT(t), bodies, compress.ZSTD)
		if err != nil {
			t.Fatal(err)
		}
		e, out := v.engine(topic, "s", func(o *Options[*Message]) { o.BatchIndexAck = true })
		msgs := recvN(t, out, 5)
		for i, m := range msgs {
			id := messageid.Of(m.ID)
			if id.BatchIdx() != int32(i) || id.BatchSize() != 5 || posOf(id) != posOf(entry) {
				t.Fatalf("message %d id %v", i, m.ID)
			}
		}
		for _, i := range []int{1, 3} {
			if err := e.Ack(ctxT(t), msgs[i].ID); err != nil {
				t.Fatal(err)
			}
		}
		v.waitCursor(topic, "s", func(c brokerstub.CursorState) bool { return len(c.BatchAcks) == 1 })
		e.Close()
		e2, out2 := v.engine(topic, "s", func(o *Options[*Message]) { o.BatchIndexAck = true })
		got := payloads(recvN(t, out2, 3))
		if !slices.Equal(got, []string{"b-0", "b-2", "b-4"}) {
			t.Fatalf("after partial ack: %v", got)
		}
		expectNone(t, out2, 50*time.Millisecond)
		_ = e2
	})
}

func TestBatchAckWithoutIndexAck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		entry, err := p.SendBatch(ctxT(t), [][]byte{[]byte("a"), []byte("b"), []byte("c")}, compress.NONE)
		if err != nil {
			t.Fatal(err)
		}
		e, out := v.engine(topic, "s", nil)
		msgs := recvN(t, out, 3)
		for _, m := range msgs[:2] {
			if err := e.Ack(ctxT(t), m.ID); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait() // the acks sent, if any, and handled
		if cur, _, _ := v.b.Cursor(topic, "s"); cur.MarkDelete.Entry == entry.EntryID() {
			t.Fatal("entry acknowledged before all its messages")
		}
		if err := e.Ack(ctxT(t), msgs[2].ID); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", ackedThrough(entry))
	})
}

func TestCumulativeAck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		var last messageid.ID
		for i := range 4 {
			id, err := p.Send(ctxT(t), fmt.Appendf(nil, "m-%d", i), "")
			if err != nil {
				t.Fatal(err)
			}
			last = id
		}
		e, out := v.engine(topic, "s", nil)
		msgs := recvN(t, out, 4)
		if err := e.AckCumulative(ctxT(t), msgs[3].ID); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", ackedThrough(last))
	})
}

func TestAckWithResponse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		id, err := p.Send(ctxT(t), []byte("x"), "")
		if err != nil {
			t.Fatal(err)
		}
		e, out := v.engine(topic, "s", func(o *Options[*Message]) { o.AckWithResponse = true; o.AckGroupTime = time.Hour })
		m := recv(t, out)
		if err := e.Ack(ctxT(t), m.ID); err != nil {
			t.Fatal(err)
		}
		// The receipt came back: the cursor moved before Ack returned.
		if cur, _, _ := v.b.Cursor(topic, "s"); !ackedThrough(id)(cur) {
			t.Fatalf("cursor %+v after a receipt", cur)
		}
	})
}

func TestGroupedAcksFlushOnTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		var last messageid.ID
		for i := range 3 {
			last, _ = p.Send(ctxT(t), fmt.Appendf(nil, "m-%d", i), "")
		}
		e, out := v.engine(topic, "s", func(o *Options[*Message]) { o.AckGroupTime = 30 * time.Millisecond })
		for _, m := range recvN(t, out, 3) {
			if err := e.Ack(ctxT(t), m.ID); err != nil {
				t.Fatal(err)
			}
		}
		v.waitCursor(topic, "s", ackedThrough(last))
	})
}

func TestNackRedeliversWithCount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		if _, err := p.Send(ctxT(t), []byte("x"), ""); err != nil {
			t.Fatal(err)
		}
		e, out := v.engine(topic, "s", func(o *Options[*Message]) {
			o.SubType = proto.CommandSubscribe_Shared
			o.NackDelay = 20 * time.Millisecond
		})
		m := recv(t, out)
		if m.RedeliveryCount != 0 {
			t.Fatalf("first delivery count %d", m.RedeliveryCount)
		}
		e.Nack(m.ID)
		m2 := recv(t, out)
		if string(m2.Payload) != "x" || m2.RedeliveryCount != 1 {
			t.Fatalf("redelivered %q count %d", m2.Payload, m2.RedeliveryCount)
		}
	})
}

func TestAckTimeoutRedelivers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		if _, err := p.Send(ctxT(t), []byte("x"), ""); err != nil {
			t.Fatal(err)
		}
		_, out := v.engine(topic, "s", func(o *Options[*Message]) { o.AckTimeout = 30 * time.Millisecond })
		recv(t, out)
		if m := recv(t, out); m.RedeliveryCount != 1 {
			t.Fatalf("redelivery count %d", m.RedeliveryCount)
		}
	})
}

func TestReconnectAfterUnload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		e, out := v.engine(topic, "s", nil)
		if _, err := p.Send(ctxT(t), []byte("before"), ""); err != nil {
			t.Fatal(err)
		}
		m := recv(t, out)
		if err := e.Ack(ctxT(t), m.ID); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", ackedThrough(m.ID))
		if err := v.b.Unload(topic); err != nil {
			t.Fatal(err)
		}
		p2 := v.producer(topic)
		if _, err := p2.Send(ctxT(t), []byte("after"), ""); err != nil {
			t.Fatal(err)
		}
		if m := recv(t, out); string(m.Payload) != "after" {
			t.Fatalf("got %q", m.Payload)
		}
	})
}
