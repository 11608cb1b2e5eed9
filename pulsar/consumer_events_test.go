package pulsar

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
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
// reaches the Failover consumers' listeners: one consumer is told it is
// active, the other that it is inactive, and the other takes over when the
// active one leaves; on a partitioned topic each partition reports its own
// name and index. The broker tells them after its failover delay (1 s, as
// Pulsar's activeConsumerFailoverDelayTimeMillis), on the bubble's clock.
func TestConsumerEventListenerFailover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		la, lb := &eventLog{name: "a"}, &eventLog{name: "b"}
		a := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "fo", Type: Failover, Name: "a", EventListener: la})
		b := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "fo", Type: Failover, Name: "b", EventListener: lb})
		time.Sleep(2 * time.Second)
		synctest.Wait()
		// The broker tells every consumer of the subscription whenever it
		// picks the active one, and the listener hears each, as with the
		// official client; the last word each heard decides.
		last := func(l *eventLog) string {
			got := l.get()
			if len(got) == 0 {
				t.Fatalf("%s heard nothing", l.name)
			}
			return got[len(got)-1]
		}
		active, standby, sl := a, b, lb
		if last(lb) == "b active "+topic+" 0" {
			active, standby, sl = b, a, la
		}
		if want := sl.name + " inactive " + topic + " 0"; last(sl) != want {
			t.Fatalf("a: %v, b: %v: want one active and the other %q", la.get(), lb.get(), want)
		}
		active.Close()
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if want := sl.name + " active " + topic + " 0"; last(sl) != want {
			t.Fatalf("%s after the active consumer left: %v, want %q last", sl.name, sl.get(), want)
		}
		standby.Close()

		parted := csTopic()
		if err := v.b.CreatePartitionedTopic(parted, 2); err != nil {
			t.Fatal(err)
		}
		lp := &eventLog{name: "p"}
		v.subscribe(ConsumerOptions{Topic: parted, SubscriptionName: "fo", Type: Failover, EventListener: lp})
		time.Sleep(2 * time.Second)
		synctest.Wait()
		got := slices.Compact(slices.Sorted(slices.Values(lp.get())))
		if want := []string{"p active " + parted + "-partition-0 0", "p active " + parted + "-partition-1 1"}; !slices.Equal(got, want) {
			t.Fatalf("partitioned: %v, want %v", got, want)
		}
	})
}
