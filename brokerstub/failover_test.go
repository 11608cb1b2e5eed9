package brokerstub

import (
	"fmt"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/protocol"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/stretchr/testify/assert"
)

// activeChange is one ACTIVE_CONSUMER_CHANGE a ksClient read.
type activeChange struct {
	Consumer uint64
	Active   bool
}

// subscribeFailover attaches a Failover consumer named name and returns the
// ACTIVE_CONSUMER_CHANGE commands that arrived before its SUCCESS; permits
// > 0 sends a FLOW after it, as clients do.
func (c *ksClient) subscribeFailover(topic string, id uint64, name string, priority int32, permits uint32) []activeChange {
	c.t.Helper()
	rid := c.nextRID()
	c.changes = nil
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &topic, Subscription: protocol.Strp("s"), SubType: proto.CommandSubscribe_Failover.Enum(), ConsumerId: &id,
		RequestId: &rid, ConsumerName: &name, PriorityLevel: &priority, InitialPosition: proto.CommandSubscribe_Earliest.Enum()}})
	c.readUntil(proto.BaseCommand_SUCCESS)
	before := c.changes
	c.changes = nil
	if permits > 0 {
		c.flow(id, permits)
	}
	return before
}

// takeChanges returns (and forgets) the ACTIVE_CONSUMER_CHANGE commands
// read so far, after a barrier.
func (c *ksClient) takeChanges(id uint64) []activeChange {
	c.t.Helper()
	c.barrier(id)
	out := c.changes
	c.changes = nil
	return out
}

// TestFailoverActiveConsumerChangeAfterDelay is the official client's
// TestPartitionTopic_ActiveConsumerChanged at the protocol level: as
// Pulsar's activeConsumerFailoverDelayTimeMillis (1 s), the consumers of a
// Failover subscription are told who is active, and the new active consumer
// gets messages, only a second after the active consumer changed — so never
// before the client has handled its SUBSCRIBE success (the official client
// registers the consumer only then, and drops a notification that comes
// earlier). Meanwhile the old active consumer may still acknowledge; what
// it acknowledged is not redelivered.
func TestFailoverActiveConsumerChangeAfterDelay(t *testing.T) {
	clk := NewFakeClock(delayT0)
	b := RunT(t, Options{Clock: clk})
	topic := "persistent://public/default/fo-partition-1" // partition index 1
	c := dialKS(t, b)
	p := c.producer(topic, 1)
	m0 := p.Send("", "m0")
	p.Send("", "m1")
	p.Send("", "m2")

	assert.Empty(t, c.subscribeFailover(topic, 1, "a", 0, 100))
	assert.Empty(t, c.sync(1), "delivered before the failover delay")
	assert.Empty(t, c.takeChanges(1), "told before the failover delay")
	clk.Advance(999 * time.Millisecond)
	assert.Empty(t, c.sync(1))
	assert.Empty(t, c.takeChanges(1))
	clk.Advance(time.Millisecond)
	assert.Equal(t, []string{"m0", "m1", "m2"}, payloads(c.sync(1)))
	assert.Equal(t, []activeChange{{1, true}}, c.takeChanges(1))

	// b takes partition 1 (index 1 of [a b]); a acks m0 during the delay.
	assert.Empty(t, c.subscribeFailover(topic, 2, "b", 0, 100))
	c.ack(1, m0)
	assert.Empty(t, c.sync(2))
	assert.Empty(t, c.takeChanges(2))
	clk.Advance(time.Second)
	assert.Equal(t, []string{"m1", "m2"}, payloads(c.sync(2)))
	assert.Empty(t, c.sync(1))
	assert.ElementsMatch(t, []activeChange{{1, false}, {2, true}}, c.takeChanges(2))

	// c joins without changing the active consumer (1 % 3 is still b): it
	// alone is told, before its SUCCESS, and nothing is redelivered.
	assert.Equal(t, []activeChange{{3, false}}, c.subscribeFailover(topic, 3, "c", 0, 100))
	clk.Advance(time.Hour)
	assert.Empty(t, c.takeChanges(3))
	assert.Empty(t, c.sync(2))
	assert.Empty(t, c.sync(3))
}

// TestFailoverActiveConsumerLeaves: when the active consumer closes, the
// next one takes over after the delay, with what the old one left
// unacknowledged; a change while a rewind is pending does not postpone it.
func TestFailoverActiveConsumerLeaves(t *testing.T) {
	clk := NewFakeClock(delayT0)
	b := RunT(t, Options{Clock: clk})
	topic := "persistent://public/default/fo-leave-partition-0"
	c := dialKS(t, b)
	p := c.producer(topic, 1)
	p.Send("", "m0")
	c.subscribeFailover(topic, 1, "a", 0, 100)
	c.subscribeFailover(topic, 2, "b", 0, 100)
	clk.Advance(time.Second)
	assert.Equal(t, []string{"m0"}, payloads(c.sync(1)))
	c.takeChanges(1)

	c.closeConsumer(1)
	clk.Advance(600 * time.Millisecond)
	c.subscribeFailover(topic, 3, "0", 0, 100) // sorts first: active at once
	clk.Advance(400 * time.Millisecond)        // one second after a left
	assert.Equal(t, []string{"m0"}, payloads(c.sync(3)))
	assert.ElementsMatch(t, []activeChange{{2, false}, {3, true}}, c.takeChanges(3))
	assert.Empty(t, c.sync(2))
}

// TestFailoverNoDelayAndExclusive: with the delay switched off (negative)
// a Failover subscription tells its consumers and delivers at once, and an
// Exclusive one never waits and is never told.
func TestFailoverNoDelayAndExclusive(t *testing.T) {
	clk := NewFakeClock(delayT0)
	b := RunT(t, Options{Clock: clk, ActiveConsumerFailoverDelay: -1})
	c := dialKS(t, b)
	topic := "persistent://public/default/fo-nodelay-partition-0"
	c.producer(topic, 1).Send("", "m0")
	assert.Equal(t, []activeChange{{1, true}}, c.subscribeFailover(topic, 1, "a", 0, 100))
	assert.Equal(t, []string{"m0"}, payloads(c.sync(1)))

	b2 := RunT(t, Options{Clock: clk})
	c2 := dialKS(t, b2)
	ex := "persistent://public/default/fo-exclusive"
	c2.producer(ex, 1).Send("", "m0")
	c2.subscribeTyped(ex, "s", proto.CommandSubscribe_Exclusive, 1, 100)
	assert.Equal(t, []string{"m0"}, payloads(c2.sync(1)))
	assert.Empty(t, c2.takeChanges(1))
}

// TestFailoverPriorityLevels: only consumers of the highest priority level
// (the lowest number) share the partitions.
func TestFailoverPriorityLevels(t *testing.T) {
	clk := NewFakeClock(delayT0)
	b := RunT(t, Options{Clock: clk, ActiveConsumerFailoverDelay: -1})
	c := dialKS(t, b)
	topic := "persistent://public/default/fo-prio-partition-1"
	c.producer(topic, 1).Send("", "m0")
	c.subscribeFailover(topic, 1, "a", 0, 100)
	c.subscribeFailover(topic, 2, "b", 1, 100) // lower priority: never active while a is there
	assert.Equal(t, []string{"m0"}, payloads(c.sync(1)))
	assert.Empty(t, c.sync(2))
}

// TestFailoverNonPartitionedHashRing: on a non-partitioned topic the active
// consumer is chosen by Pulsar's hash ring of consumer names at the hash of
// the topic name (not by name order): checked against a brute-force search
// of the ring, over topics where it picks either consumer.
func TestFailoverNonPartitionedHashRing(t *testing.T) {
	ringWinner := func(topic string, names []string) string {
		h := engine.JavaHash(topic)
		best, bestHash, first, firstHash := "", uint32(0), "", ^uint32(0)
		found := false
		for _, n := range names {
			for j := range 100 {
				ph := engine.JavaHash(fmt.Sprint(n, j))
				if ph < firstHash || ph == firstHash {
					first, firstHash = n, ph
				}
				if ph >= h && (!found || ph <= bestHash) {
					best, bestHash, found = n, ph, true
				}
			}
		}
		if !found {
			return first
		}
		return best
	}
	clk := NewFakeClock(delayT0)
	b := RunT(t, Options{Clock: clk, ActiveConsumerFailoverDelay: -1})
	c := dialKS(t, b)
	winners := map[string]int{}
	for i := range 12 {
		topic := fmt.Sprintf("persistent://public/default/fo-ring-%d", i)
		want := ringWinner(topic, []string{"a", "b"})
		winners[want]++
		c.producer(topic, uint64(10+i)).Send("", "m")
		id1, id2 := uint64(100+2*i), uint64(101+2*i)
		c.subscribeFailover(topic, id1, "b", 0, 0) // subscription order does not matter
		c.subscribeFailover(topic, id2, "a", 0, 0)
		c.flow(id1, 100)
		c.flow(id2, 100)
		got := map[string]int{"b": len(c.sync(id1)), "a": len(c.sync(id2))}
		assert.Equal(t, 1, got[want], "topic %s: %v", topic, got)
	}
	assert.Positive(t, winners["a"])
	assert.Positive(t, winners["b"], "the ring never picked b: not Pulsar's choice")
}
