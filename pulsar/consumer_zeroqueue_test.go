package pulsar

import (
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
)

// deliveries counts the MESSAGE commands the broker writes, per consumer
// connection-and-id.
type deliveries struct {
	mu sync.Mutex
	n  map[[2]uint64]int
}

func countDeliveries(b *brokerstub.Broker) *deliveries {
	d := &deliveries{n: map[[2]uint64]int{}}
	b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
		if ev.Type == brokerstub.CmdMessage && ev.Dir == brokerstub.Outbound {
			d.mu.Lock()
			d.n[[2]uint64{ev.Conn, ev.ConsumerID}]++
			d.mu.Unlock()
		}
		return brokerstub.Action{}
	})
	return d
}

func (d *deliveries) total() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, c := range d.n {
		n += c
	}
	return n
}

// TestZeroQueueConsumerPrefetchesNothing: a zero-queue consumer is given
// one message per Receive and nothing more, so that another consumer of a
// Shared subscription receives the rest; it survives an unload with a
// Receive waiting; a chunked message reaches it whole.
func TestZeroQueueConsumerPrefetchesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t, brokerstub.Options{MaxMessageSize: 128 << 10})
		topic := csTopic()
		p := testProducer(t, v.c, ProducerOptions{Topic: topic, DisableBatching: true, EnableChunking: true})
		for range 10 {
			if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("m")}); err != nil {
				t.Fatal(err)
			}
		}
		d := countDeliveries(v.b)
		z := v.subscribe(ConsumerOptions{Topic: topic, Type: Shared, EnableZeroQueueConsumer: true})
		if _, ok := z.(*zeroQueueConsumer); !ok {
			t.Fatalf("zero-queue consumer is a %T", z)
		}
		synctest.Wait()
		if n := d.total(); n != 0 {
			t.Fatalf("%d messages delivered before any Receive", n)
		}
		for _, m := range csRecvN(t, z, 2) {
			if err := z.Ack(m); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		if n := d.total(); n != 2 {
			t.Fatalf("%d messages delivered for 2 Receives", n)
		}
		other := v.subscribe(ConsumerOptions{Topic: topic, Type: Shared})
		for _, m := range csRecvN(t, other, 8) {
			if err := other.Ack(m); err != nil {
				t.Fatal(err)
			}
		}

		// The stub persists acknowledgments on its flush interval, and an
		// unload can lose what it did not flush yet (reported); wait for
		// the flush so that only the zero queue is under test.
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
			cur, persisted, err := v.b.Cursor(topic, "s")
			if err == nil && persisted.MarkDelete == cur.MarkDelete && len(persisted.Ranges) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("cursor %+v not persisted (%+v, %v)", cur, persisted, err)
			}
		}

		// A Receive waiting across an unload gets the next message.
		got := make(chan Message, 1)
		go func() {
			if m, err := z.Receive(csCtx(t)); err == nil {
				got <- m
			}
		}()
		synctest.Wait()
		if err := v.b.Unload(topic); err != nil {
			t.Fatal(err)
		}
		big := csNoise(300<<10, 5)
		if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: big}); err != nil {
			t.Fatal(err)
		}
		other.Close()
		select {
		case m := <-got:
			csSame(t, m.Payload(), big)
		case <-time.After(20 * time.Second):
			t.Fatal("the Receive waiting across the unload got nothing")
		}
	})
}

// TestZeroQueueConsumerRefusals: a partitioned topic and several topics
// are refused, as is Chan (it panics, as the official client's does).
func TestZeroQueueConsumerRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		parted := csTopic()
		if err := v.b.CreatePartitionedTopic(parted, 2); err != nil {
			t.Fatal(err)
		}
		for _, o := range []ConsumerOptions{
			{Topic: parted, SubscriptionName: "s", EnableZeroQueueConsumer: true},
			{Topics: []string{csTopic(), csTopic()}, SubscriptionName: "s", EnableZeroQueueConsumer: true},
		} {
			if c, err := v.c.Subscribe(o); !errors.Is(err, ErrInvalidOptions) {
				t.Fatalf("%v: %v, %v", o.Topics, c, err)
			}
		}
		one := v.subscribe(ConsumerOptions{Topic: parted + "-partition-1", EnableZeroQueueConsumer: true})
		defer func() {
			if r := recover(); r != "zeroQueueConsumer cannot support Chan method" {
				t.Fatalf("Chan: recovered %v", r)
			}
		}()
		one.Chan()
	})
}

// TestAutoScaledReceiverQueue: the receiver queue starts at one message
// and grows (doubling) while the application keeps up, never past
// ReceiverQueueSize.
func TestAutoScaledReceiverQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p := testProducer(t, v.c, ProducerOptions{Topic: topic, DisableBatching: true})
		for range 100 {
			p.SendAsync(csCtx(t), &ProducerMessage{Payload: []byte("m")}, nil)
		}
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		d := countDeliveries(v.b)
		c := v.subscribe(ConsumerOptions{Topic: topic, ReceiverQueueSize: 16, EnableAutoScaledReceiverQueueSize: true})
		synctest.Wait()
		if n := d.total(); n != 1 {
			t.Fatalf("%d messages prefetched at first, want 1", n)
		}
		maxAhead := 0
		for i := 1; i <= 100; i++ {
			csRecv(t, c)
			synctest.Wait()
			maxAhead = max(maxAhead, d.total()-i)
		}
		if maxAhead <= 1 || maxAhead > 16 {
			t.Fatalf("at most %d messages prefetched; want the queue grown past 1, within 16", maxAhead)
		}
		if got := c.(*consumerImpl).set.all()[0].QueueSize(); got != 16 {
			t.Fatalf("queue size %d after 100 messages, want grown to 16", got)
		}
	})
}
