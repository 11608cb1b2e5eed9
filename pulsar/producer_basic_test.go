package pulsar

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/messageid"
)

func TestProducerSendFieldsAndIDs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c := testClient(t, b)
		topic := testTopic(t)
		rc := rawSubscribe(t, b, topic, 0)
		p := testProducer(t, c, ProducerOptions{Topic: topic, DisableBatching: true})
		if !strings.HasPrefix(p.Name(), "brokerstub-") {
			t.Errorf("broker-assigned name = %q", p.Name())
		}
		if p.LastSequenceID() != -1 {
			t.Errorf("LastSequenceID before any send = %d", p.LastSequenceID())
		}
		ctx := ctxFor(t, 10*time.Second)
		event := time.UnixMilli(1_700_000_000_123)
		at := time.Now().Add(time.Hour).Truncate(time.Millisecond)
		msgs := []*ProducerMessage{
			{Payload: []byte("one"), Key: "k1", Properties: map[string]string{"a": "b"}, EventTime: event},
			{Payload: []byte("two"), OrderingKey: "ok", DeliverAt: at},
			{Payload: []byte("three"), DeliverAfter: time.Hour},
			{Payload: nil},
		}
		var ids []MessageID
		for _, m := range msgs {
			id, err := p.Send(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			if id.BatchIdx() != -1 || id.PartitionIdx() != -1 {
				t.Errorf("id %v: batch %d partition %d", id, id.BatchIdx(), id.PartitionIdx())
			}
			ids = append(ids, id)
		}
		if p.LastSequenceID() != 3 {
			t.Errorf("LastSequenceID = %d, want 3", p.LastSequenceID())
		}
		gotMsgs := rc.wait(len(msgs), 10*time.Second)
		for i, g := range gotMsgs {
			if !bytes.Equal(g.Payload, msgs[i].Payload) {
				t.Errorf("message %d payload %q", i, g.Payload)
			}
			if messageid.Compare(g.ID, ids[i]) != 0 {
				t.Errorf("message %d id %v, Send returned %v", i, g.ID, ids[i])
			}
			if g.Meta.GetSequenceId() != uint64(i) || g.Meta.GetProducerName() != p.Name() {
				t.Errorf("message %d seq %d producer %q", i, g.Meta.GetSequenceId(), g.Meta.GetProducerName())
			}
		}
		m0 := gotMsgs[0].Meta
		if m0.GetPartitionKey() != "k1" || m0.GetEventTime() != millis(event) ||
			len(m0.GetProperties()) != 1 || m0.GetProperties()[0].GetKey() != "a" || m0.GetProperties()[0].GetValue() != "b" {
			t.Errorf("metadata 0: %v", m0)
		}
		if m1 := gotMsgs[1].Meta; string(m1.GetOrderingKey()) != "ok" || m1.GetDeliverAtTime() != at.UnixMilli() {
			t.Errorf("metadata 1: %v", m1)
		}
		if d := time.Until(time.UnixMilli(gotMsgs[2].Meta.GetDeliverAtTime())); d < 59*time.Minute || d > time.Hour {
			t.Errorf("DeliverAfter: deliver_at_time in %v", d)
		}
		st := p.Stats()
		if st.MessagesSent != 4 || st.BytesSent != 11 || st.PendingMessages != 0 || st.PendingBytes != 0 || st.Errors != 0 {
			t.Errorf("stats %+v", st)
		}
		if c.mem.inUse() != 0 {
			t.Errorf("memory in use after all receipts: %d", c.mem.inUse())
		}
	})
}

func TestProducerUserNameAndProperties(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c := testClient(t, b)
		topic := testTopic(t)
		p := testProducer(t, c, ProducerOptions{Topic: topic, Name: "mine", Properties: map[string]string{"x": "y"}})
		if p.Name() != "mine" || p.Topic() != topic {
			t.Errorf("name %q topic %q", p.Name(), p.Topic())
		}
		// A second producer with the same name is refused by the broker.
		_, err := c.CreateProducer(ProducerOptions{Topic: topic, Name: "mine"})
		var se *ServerError
		if !errors.As(err, &se) || se.Code != "ProducerBusy" {
			t.Errorf("duplicate name: %v", err)
		}
	})
}

func TestProducerInvalidOptions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c := testClient(t, b)
		if _, err := c.CreateProducer(ProducerOptions{}); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("no topic: %v", err)
		}
		if _, err := c.CreateProducer(ProducerOptions{Topic: "t", CompressionType: 9}); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("bad codec: %v", err)
		}
	})
}

func TestProducerSendAsyncOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c := testClient(t, b)
		topic := testTopic(t)
		rc := rawSubscribe(t, b, topic, 0)
		p := testProducer(t, c, ProducerOptions{Topic: topic})
		const n = 500
		var mu sync.Mutex
		var order []int
		var wg sync.WaitGroup
		wg.Add(n)
		for i := range n {
			msg := &ProducerMessage{Payload: []byte{byte(i), byte(i >> 8)}}
			p.SendAsync(ctxFor(t, 10*time.Second), msg, func(id MessageID, m *ProducerMessage, err error) {
				defer wg.Done()
				if err != nil || m != msg || id == nil {
					t.Errorf("callback %d: %v", i, err)
				}
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
			})
		}
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		for i, v := range order {
			if v != i {
				t.Fatalf("callback %d ran as #%d", v, i)
			}
		}
		for i, g := range rc.wait(n, 10*time.Second) {
			if g.Payload[0] != byte(i) || g.Payload[1] != byte(i>>8) {
				t.Fatalf("message %d out of order: %v", i, g.Payload)
			}
		}
	})
}

func TestProducerClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c := testClient(t, b)
		topic := testTopic(t)
		rc := rawSubscribe(t, b, topic, 0)
		p, err := c.CreateProducer(ProducerOptions{Topic: topic, BatchingMaxPublishDelay: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 3)
		for range 3 {
			p.SendAsync(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: []byte("x")}, func(_ MessageID, _ *ProducerMessage, err error) {
				done <- err
			})
		}
		p.Close() // flushes the open batch
		for range 3 {
			if err := <-done; err != nil {
				t.Errorf("message sent before Close: %v", err)
			}
		}
		rc.wait(3, 5*time.Second)
		if _, err := p.Send(ctxFor(t, time.Second), &ProducerMessage{Payload: []byte("late")}); !errors.Is(err, ErrProducerClosed) {
			t.Errorf("send after close: %v", err)
		}
		if err := p.Flush(); !errors.Is(err, ErrProducerClosed) {
			t.Errorf("flush after close: %v", err)
		}
		p.Close() // idempotent

		// Client.Close closes producers; pending messages fail with
		// ErrProducerClosed when their receipts never come.
		p2 := testProducer(t, c, ProducerOptions{Topic: topic, DisableBatching: true, SendTimeout: -1})
		b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
			return brokerstub.Action{Drop: ev.Type == "SEND_RECEIPT"}
		})
		errc := make(chan error, 1)
		p2.SendAsync(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: []byte("lost")}, func(_ MessageID, _ *ProducerMessage, err error) {
			errc <- err
		})
		c.opts.OperationTimeout = 200 * time.Millisecond
		closed := make(chan struct{})
		go func() { p2.Close(); close(closed) }()
		select {
		case err := <-errc:
			if !errors.Is(err, ErrProducerClosed) {
				t.Errorf("pending message at close: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("close did not fail the pending message")
		}
		<-closed
		if c.mem.inUse() != 0 {
			t.Errorf("memory in use after close: %d", c.mem.inUse())
		}
	})
}
