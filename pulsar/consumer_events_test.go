package pulsar

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
)

// eventLog records a ConsumerEventListener's calls.
type eventLog struct {
	mu     sync.Mutex
	name   string
	events []string
}

func (l *eventLog) add(kind string, c Consumer, topic string, partition int32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fmt.Sprintf("%s %s %s %d", l.name, kind, topic, partition))
	_ = c.Name() // the consumer may be called back from the listener
}

func (l *eventLog) BecameActive(c Consumer, topic string, partition int32) {
	l.add("active", c, topic, partition)
}

func (l *eventLog) BecameInactive(c Consumer, topic string, partition int32) {
	l.add("inactive", c, topic, partition)
}

func (l *eventLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// TestConsumerEventListenerFailover: the broker's ACTIVE_CONSUMER_CHANGE
// reaches the Failover consumers' listeners: the first consumer becomes
// active, the second is told it is inactive, and takes over when the first
// leaves; on a partitioned topic each partition reports its own name and
// index.
func TestConsumerEventListenerFailover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		la, lb := &eventLog{name: "a"}, &eventLog{name: "b"}
		a := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "fo", Type: Failover, Name: "a", EventListener: la})
		synctest.Wait()
		b := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "fo", Type: Failover, Name: "b", EventListener: lb})
		synctest.Wait()
		// The broker tells every consumer of the subscription whenever it
		// picks the active one (a is told again when b joins), and the
		// listener hears each, as with the official client.
		if got := la.get(); len(got) == 0 || slices.ContainsFunc(got, func(e string) bool { return e != "a active "+topic+" 0" }) {
			t.Fatalf("a: %v, want only \"a active %s 0\"", got, topic)
		}
		if got := lb.get(); len(got) == 0 || slices.ContainsFunc(got, func(e string) bool { return e != "b inactive "+topic+" 0" }) {
			t.Fatalf("b: %v, want only \"b inactive %s 0\"", got, topic)
		}
		a.Close()
		synctest.Wait()
		if got := lb.get(); got[len(got)-1] != "b active "+topic+" 0" {
			t.Fatalf("b after a left: %v, want it active last", got)
		}
		b.Close()

		parted := csTopic()
		if err := v.b.CreatePartitionedTopic(parted, 2); err != nil {
			t.Fatal(err)
		}
		lp := &eventLog{name: "p"}
		v.subscribe(ConsumerOptions{Topic: parted, SubscriptionName: "fo", Type: Failover, EventListener: lp})
		synctest.Wait()
		got := slices.Compact(slices.Sorted(slices.Values(lp.get())))
		if want := []string{"p active " + parted + "-partition-0 0", "p active " + parted + "-partition-1 1"}; !slices.Equal(got, want) {
			t.Fatalf("partitioned: %v, want %v", got, want)
		}
	})
}
