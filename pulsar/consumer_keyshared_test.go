package pulsar

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub/keyorder"
	"github.com/pulsargo/sdk/messageid"
)

// ksConsumer is a Key_Shared consumer whose deliveries and acks go to the
// stub's ordering checker.
type ksConsumer struct {
	name   string
	c      Consumer
	cancel context.CancelFunc
	done   chan struct{}
}

func startKS(t *testing.T, v *csEnv, topic, name string, chk *keyorder.Checker, errs chan<- error) *ksConsumer {
	c, err := v.c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "ks", Type: KeyShared, Name: name,
		SubscriptionInitialPosition: SubscriptionPositionEarliest, ReceiverQueueSize: 5})
	if err != nil {
		t.Fatalf("subscribe %s: %v", name, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	k := &ksConsumer{name: name, c: c, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(k.done)
		for {
			m, err := c.Receive(ctx)
			if err != nil {
				return
			}
			id := messageid.LastChunk(m.ID())
			kid := keyorder.ID{Ledger: id.LedgerID(), Entry: id.EntryID(), Batch: id.BatchIdx()}
			if err := chk.Received(name, m.Key(), kid); err != nil {
				errs <- err
			}
			time.Sleep(time.Millisecond) // some work: consumers overlap while others join and leave (bubble time)
			if err := chk.Acked(name, kid); err != nil {
				errs <- err
			}
			if err := c.Ack(m); err != nil {
				errs <- err
			}
		}
	}()
	return k
}

// leave stops the consumer, tells the checker, and closes it.
func (k *ksConsumer) leave(t *testing.T, chk *keyorder.Checker) {
	k.cancel()
	<-k.done
	if err := chk.Left(k.name); err != nil {
		t.Error(err)
	}
	k.c.Close()
}

// TestKeySharedOrderingWithJoinsAndLeaves: this SDK's Key_Shared consumers,
// joining and leaving while messages flow, pass the stub's ordering checker
// and every message is acknowledged.
func TestKeySharedOrderingWithJoinsAndLeaves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p := v.raw(topic, -1)
		var chk keyorder.Checker
		errs := make(chan error, 100)
		send := func(from, to int) messageid.MessageID {
			var last messageid.MessageID
			for i := from; i < to; i++ {
				id, err := p.Send(csCtx(t), fmt.Appendf(nil, "m-%d", i), fmt.Sprintf("key-%d", i%13))
				if err != nil {
					t.Fatal(err)
				}
				last = id
			}
			return last
		}
		active := []*ksConsumer{startKS(t, v, topic, "c1", &chk, errs), startKS(t, v, topic, "c2", &chk, errs)}
		send(0, 100)
		active = append(active, startKS(t, v, topic, "c3", &chk, errs))
		send(100, 200)
		active[0].leave(t, &chk)
		send(200, 300)
		active = append(active, startKS(t, v, topic, "c4", &chk, errs))
		active[1].leave(t, &chk)
		last := send(300, 400)
		v.waitCursor(topic, "ks", allAcked(last))
		for _, k := range active[2:] {
			k.leave(t, &chk)
		}
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if err := chk.Err(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestKeySharedStickyRanges: sticky consumers get the keys of their hash
// ranges; overlapping ranges are refused by the broker.
func TestKeySharedStickyRanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		sticky := func(name string, ranges ...int) (Consumer, error) {
			return v.c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "ks", Type: KeyShared, Name: name,
				SubscriptionInitialPosition: SubscriptionPositionEarliest,
				KeySharedPolicy:             &KeySharedPolicy{Mode: KeySharedPolicyModeSticky, HashRanges: ranges}})
		}
		low, err := sticky("low", 0, 32767)
		if err != nil {
			t.Fatal(err)
		}
		defer low.Close()
		high, err := sticky("high", 32768, 65535)
		if err != nil {
			t.Fatal(err)
		}
		defer high.Close()
		if c, err := sticky("overlap", 100, 200); err == nil {
			c.Close()
			t.Fatal("overlapping sticky range accepted")
		}
		p := v.raw(topic, -1)
		for i := range 40 {
			_, _ = p.Send(csCtx(t), fmt.Appendf(nil, "m-%d", i), fmt.Sprintf("key-%d", i))
		}
		keysOf := map[string]string{}
		for len(keysOf) < 40 {
			for _, c := range []Consumer{low, high} {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
				m, err := c.Receive(ctx)
				cancel()
				if err != nil {
					continue
				}
				if prev, ok := keysOf[m.Key()]; ok && prev != c.Name() {
					t.Fatalf("key %s at %s and %s", m.Key(), prev, c.Name())
				}
				keysOf[m.Key()] = c.Name()
				_ = c.Ack(m)
			}
		}
		n := 0
		for _, name := range keysOf {
			if name == "low" {
				n++
			}
		}
		if n == 0 || n == 40 {
			t.Fatalf("%d of 40 keys at the low range", n)
		}
	})
}
