package pulsar

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar/backoff"
)

// countingPolicy is a fixed-delay backoff.Policy that counts its use.
type countingPolicy struct{ next, resets *atomic.Int32 }

func (p countingPolicy) Next() time.Duration       { p.next.Add(1); return time.Second }
func (p countingPolicy) IsMaxBackoffReached() bool { return false }
func (p countingPolicy) Reset()                    { p.resets.Add(1) }

// refuse makes the stub fail every command of type typ once on is set, and
// counts them.
func refuse(b *brokerstub.Broker, typ brokerstub.Command, on *atomic.Bool, n *atomic.Int32) {
	b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
		if ev.Dir != brokerstub.Inbound || ev.Type != typ {
			return brokerstub.Action{}
		}
		n.Add(1)
		return brokerstub.Action{Fail: on.Load(), FailWith: "ServiceNotReady"}
	})
}

// After an unload, a producer retries as often as MaxReconnectToBroker
// says, spaced by its BackOffPolicyFunc, and then stops.
func TestProducerMaxReconnectToBroker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		var on atomic.Bool
		var producers, next, resets atomic.Int32
		refuse(b, "PRODUCER", &on, &producers)
		c, err := NewClient(ClientOptions{URL: b.URL(), Dialer: b.Dial, Logger: clientLogger()})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		maxRetries := uint(3)
		p, err := c.CreateProducer(ProducerOptions{Topic: "max-reconnect", MaxReconnectToBroker: &maxRetries,
			BackOffPolicyFunc: func() backoff.Policy { return countingPolicy{&next, &resets} }})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		on.Store(true)
		if err := b.Unload(topicFull("max-reconnect")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if got := producers.Load(); got != 1+3 {
			t.Fatalf("%d PRODUCER commands, want the creation and 3 reconnection attempts", got)
		}
		if next.Load() < 3 {
			t.Fatalf("the policy gave %d delays for 3 failed attempts", next.Load())
		}
	})
}

func TestConsumerMaxReconnectToBroker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		var on atomic.Bool
		var subscribes, next, resets atomic.Int32
		refuse(b, "SUBSCRIBE", &on, &subscribes)
		c, err := NewClient(ClientOptions{URL: b.URL(), Dialer: b.Dial, Logger: clientLogger()})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		maxRetries := uint(2)
		cs, err := c.Subscribe(ConsumerOptions{Topic: "max-reconnect-c", SubscriptionName: "s", MaxReconnectToBroker: &maxRetries,
			BackOffPolicyFunc: func() backoff.Policy { return countingPolicy{&next, &resets} }})
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		on.Store(true)
		if err := b.Unload(topicFull("max-reconnect-c")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if got := subscribes.Load(); got != 1+2 {
			t.Fatalf("%d SUBSCRIBE commands, want the subscription and 2 attempts", got)
		}
		if next.Load() != 2 {
			t.Fatalf("the policy gave %d delays, want 2", next.Load())
		}
		// Without a bound the consumer keeps trying.
		on.Store(false)
		cs2, err := c.Subscribe(ConsumerOptions{Topic: "max-reconnect-c2", SubscriptionName: "s",
			BackOffPolicyFunc: func() backoff.Policy { return countingPolicy{&next, &resets} }})
		if err != nil {
			t.Fatal(err)
		}
		defer cs2.Close()
		before := subscribes.Load()
		on.Store(true)
		if err := b.Unload(topicFull("max-reconnect-c2")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := subscribes.Load() - before; n < 30 {
			t.Fatalf("unbounded consumer made %d attempts in a minute of 1s delays", n)
		}
	})
}
