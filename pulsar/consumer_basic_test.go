package pulsar

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"testing"
	"testing/synctest"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/topicname"
	"github.com/pulsargo/sdk/messageid"
)

func TestConsumerReceiveAndAck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p := v.raw(topic, -1)
		_, _ = p.Send(csCtx(t), []byte("plain"), "k")
		_, _ = p.SendCompressed(csCtx(t), []byte("zstd"), compress.ZSTD)
		last, _ := p.SendBatch(csCtx(t), [][]byte{[]byte("b-0"), []byte("b-1")}, compress.LZ4)
		c := v.subscribe(ConsumerOptions{Topic: topic})
		msgs := csRecvN(t, c, 4)
		if got := csNames(msgs); !slices.Equal(got, []string{"plain", "zstd", "b-0", "b-1"}) {
			t.Fatalf("got %v", got)
		}
		if msgs[0].Key() != "k" || msgs[0].Topic() != topic || msgs[0].ProducerName() != p.Name() || msgs[0].PublishTime().UnixMilli() <= 0 {
			t.Errorf("message fields: key %q topic %q producer %q", msgs[0].Key(), msgs[0].Topic(), msgs[0].ProducerName())
		}
		if id := msgs[3].ID(); id.BatchIdx() != 1 || id.BatchSize() != 2 || id.PartitionIdx() != -1 {
			t.Errorf("batch id %v", id)
		}
		for _, m := range msgs {
			if err := c.Ack(m); err != nil {
				t.Fatal(err)
			}
		}
		v.waitCursor(topic, "s", allAcked(last))
	})
}

func TestConsumerMessageFields(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p := v.raw(topic, -1)
		md := p.Meta()
		md.PartitionKey = gproto.String("key")
		md.OrderingKey = []byte("ok")
		md.EventTime = gproto.Uint64(1234567)
		md.Properties = []*proto.KeyValue{{Key: gproto.String("a"), Value: gproto.String("b")}}
		if _, err := p.SendRaw(csCtx(t), md, []byte("x")); err != nil {
			t.Fatal(err)
		}
		c := v.subscribe(ConsumerOptions{Topic: topic})
		m := csRecv(t, c)
		if m.Key() != "key" || m.OrderingKey() != "ok" || m.EventTime().UnixMilli() != 1234567 ||
			m.Properties()["a"] != "b" || m.RedeliveryCount() != 0 {
			t.Fatalf("fields: %q %q %v %v", m.Key(), m.OrderingKey(), m.EventTime(), m.Properties())
		}
	})
}

func TestConsumerChan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p := v.raw(topic, -1)
		_, _ = p.Send(csCtx(t), []byte("x"), "")
		own := make(chan ConsumerMessage, 4)
		c := v.subscribe(ConsumerOptions{Topic: topic, MessageChannel: own})
		if c.Chan() != (<-chan ConsumerMessage)(own) {
			t.Fatal("Chan is not MessageChannel")
		}
		select {
		case cm := <-c.Chan():
			if string(cm.Payload()) != "x" || cm.Consumer != c {
				t.Fatalf("got %q from %v", cm.Payload(), cm.Consumer)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("nothing on Chan")
		}
	})
}

func TestConsumerPartitionedAndMultiTopic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		parted, other := csTopic(), csTopic()
		if err := v.b.CreatePartitionedTopic(parted, 3); err != nil {
			t.Fatal(err)
		}
		var want []string
		lasts := map[string]messageid.ID{}
		for i := range 3 {
			name := topicname.PartitionName(parted, i)
			p := v.raw(name, int32(i))
			for j := range 2 {
				s := fmt.Sprintf("p%d-%d", i, j)
				lasts[name], _ = p.Send(csCtx(t), []byte(s), "")
				want = append(want, s)
			}
		}
		po := v.raw(other, -1)
		lasts[other], _ = po.Send(csCtx(t), []byte("other"), "")
		want = append(want, "other")
		c := v.subscribe(ConsumerOptions{Topics: []string{parted, other}})
		msgs := csRecvN(t, c, len(want))
		got := csNames(msgs)
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		for _, m := range msgs {
			if err := c.AckID(m.ID()); err != nil { // multi-topic: routed by the id alone
				t.Fatal(err)
			}
		}
		for topic, last := range lasts {
			v.waitCursor(topic, "s", allAcked(last))
		}
	})
}

func TestConsumerSubscriptionTypes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "ex"})
		_, err := v.c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "ex"})
		var se *ServerError
		if !errors.As(err, &se) || se.Code != "ConsumerBusy" {
			t.Fatalf("second exclusive consumer: %v", err)
		}

		// Shared: two consumers split the messages.
		a := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "sh", Type: Shared, ReceiverQueueSize: 1})
		b := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "sh", Type: Shared, ReceiverQueueSize: 1})
		p := v.raw(topic, -1)
		for i := range 6 {
			_, _ = p.Send(csCtx(t), fmt.Appendf(nil, "m-%d", i), "")
		}
		seen := map[string]bool{}
		for len(seen) < 6 {
			for _, c := range []Consumer{a, b} {
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
				if m, err := c.Receive(ctx); err == nil {
					seen[string(m.Payload())] = true
					_ = c.Ack(m)
				}
				cancel()
			}
		}

		// Failover: only the active consumer receives. On a topic without
		// partitions which one is active follows the hash of the topic's
		// name (Pulsar's hash ring), so either may be.
		f1 := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "fo", Type: Failover, Name: "a"})
		f2 := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "fo", Type: Failover, Name: "b"})
		active, idle := f1, f2
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // fake time: past the failover delay
		first, err := f1.Receive(ctx)
		cancel()
		if err != nil {
			active, idle = f2, f1
			first = csRecv(t, active)
		}
		got := map[string]bool{string(first.Payload()): true}
		for _, m := range csRecvN(t, active, 5) {
			got[string(m.Payload())] = true
		}
		if len(got) != 6 {
			t.Fatalf("the active consumer got %v", got)
		}
		csNone(t, idle, 50*time.Millisecond)
	})
}

func TestConsumerInitialPositionLatestAndUnsubscribe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p := v.raw(topic, -1)
		_, _ = p.Send(csCtx(t), []byte("old"), "")
		c, err := v.c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "latest"})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = p.Send(csCtx(t), []byte("new"), "")
		if m := csRecv(t, c); string(m.Payload()) != "new" {
			t.Fatalf("got %q", m.Payload())
		}
		if err := c.Unsubscribe(); err != nil {
			t.Fatal(err)
		}
		if _, _, err := v.b.Cursor(topic, "latest"); err == nil {
			t.Fatal("subscription still exists")
		}
		if _, err := c.Receive(csCtx(t)); !errors.Is(err, ErrConsumerClosed) {
			t.Fatalf("receive after unsubscribe: %v", err)
		}
	})
}

func TestConsumerInvalidOptions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		for _, o := range []ConsumerOptions{
			{SubscriptionName: "s"},
			{Topic: "t"},
			{Topic: "t", SubscriptionName: "s", Type: 9},
			{Topic: "t", SubscriptionName: "s", DLQ: &DLQPolicy{}},
		} {
			if _, err := v.c.Subscribe(o); !errors.Is(err, ErrInvalidOptions) {
				t.Errorf("%+v: err %v", o, err)
			}
		}
	})
}

func TestConsumerAckTimeoutAndNack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p := v.raw(topic, -1)
		_, _ = p.Send(csCtx(t), []byte("x"), "")
		c := v.subscribe(ConsumerOptions{Topic: topic, Type: Shared, AckTimeout: 50 * time.Millisecond, NackRedeliveryDelay: 20 * time.Millisecond})
		csRecv(t, c) // not acknowledged: redelivered after the ack timeout
		m := csRecv(t, c)
		if m.RedeliveryCount() != 1 {
			t.Fatalf("redelivery count %d", m.RedeliveryCount())
		}
		c.Nack(m)
		m = csRecv(t, c)
		if m.RedeliveryCount() != 2 {
			t.Fatalf("redelivery count after nack %d", m.RedeliveryCount())
		}
		if err := c.Ack(m); err != nil {
			t.Fatal(err)
		}
		csNone(t, c, 150*time.Millisecond)
	})
}
