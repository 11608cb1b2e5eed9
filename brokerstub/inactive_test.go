package brokerstub

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

// loaded reports whether the broker has the topic in memory or stored.
func loaded(b *Broker, topic string) bool {
	name, err := engine.ParseTopic(topic)
	if err != nil {
		return false
	}
	return b.eng.TopicExists(name)
}

// listed reports whether the admin API lists the topic in public/default.
func listed(t *testing.T, b *Broker, topic string) bool {
	t.Helper()
	code, body := adminDo(t, b, http.MethodGet, "/admin/v2/persistent/public/default", "")
	require.Equal(t, http.StatusOK, code, body)
	return strings.Contains(body, `"`+topic+`"`)
}

// gcSetup starts a broker on a fake clock with opts and stores one message
// on topic with a producer it then closes.
func gcSetup(t *testing.T, opts Options, topic string) (*Broker, *FakeClock, *ksClient) {
	t.Helper()
	clk := NewFakeClock(ttlT0)
	opts.Clock = clk
	b := RunT(t, opts)
	c := dialKS(t, b)
	p := c.producer(topic, 1)
	p.Send("k", "m")
	c.closeProducer(1)
	return b, clk, c
}

// TestInactiveTopicDeleted: with Pulsar's defaults (check every 60 s,
// inactive for 60 s, delete_when_no_subscriptions), a topic whose producer
// left and that has no subscription is deleted at the first check 60 s
// after the producer left, data and all; it leaves the topic list.
func TestInactiveTopicDeleted(t *testing.T) {
	topic := "persistent://public/default/gc"
	b, clk, _ := gcSetup(t, Options{}, topic)
	require.True(t, listed(t, b, topic))
	clk.Advance(59 * time.Second)
	assert.True(t, loaded(b, topic), "inactive for less than 60 s")
	clk.Advance(time.Second)
	assert.False(t, loaded(b, topic), "inactive for 60 s at the check: deleted")
	assert.False(t, listed(t, b, topic))

	// Used again, it is a new, empty topic.
	c := dialKS(t, b)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Exclusive, 1, 10)
	assert.Empty(t, c.sync(1), "the old message went with the topic")
}

// TestInactiveTopicKept: what keeps a topic: a subscription in the default
// mode, a producer, a subscription's backlog in
// delete_when_subscriptions_caught_up, the broker's deletion off, a
// negative retention time, and inactiveTopicPolicies of the namespace or
// topic.
func TestInactiveTopicKept(t *testing.T) {
	const minute = time.Minute
	t.Run("subscription", func(t *testing.T) {
		topic := "persistent://public/default/gc-sub"
		b, clk, c := gcSetup(t, Options{}, topic)
		c.subscribeTyped(topic, "s", proto.CommandSubscribe_Exclusive, 1, 0)
		c.closeConsumer(1)
		clk.Advance(minute)
		clk.Advance(minute)
		assert.True(t, loaded(b, topic))
	})
	t.Run("producer", func(t *testing.T) {
		topic := "persistent://public/default/gc-prod"
		b, clk, c := gcSetup(t, Options{}, topic)
		c.producer(topic, 2)
		clk.Advance(minute)
		clk.Advance(minute)
		assert.True(t, loaded(b, topic))
	})
	t.Run("backlog", func(t *testing.T) {
		topic := "persistent://public/default/gc-backlog"
		opts := Options{Lifecycle: Lifecycle{InactiveTopicDeleteMode: engine.DeleteWhenSubscriptionsCaughtUp}}
		clk := NewFakeClock(ttlT0)
		opts.Clock = clk
		b := RunT(t, opts)
		c := dialKS(t, b)
		c.subscribeTyped(topic, "s", proto.CommandSubscribe_Exclusive, 1, 10)
		p := c.producer(topic, 2)
		pos := p.Send("k", "m")
		c.closeProducer(2)
		c.sync(1)
		c.closeConsumer(1)
		clk.Advance(minute)
		clk.Advance(minute)
		assert.True(t, loaded(b, topic), "subscription s has a backlog")
		c.subscribeTyped(topic, "s", proto.CommandSubscribe_Exclusive, 3, 10)
		c.sync(3)
		c.ack(3, pos)
		c.closeConsumer(3)
		clk.Advance(minute)
		clk.Advance(minute)
		assert.False(t, loaded(b, topic), "caught up: deleted with its subscription")
	})
	t.Run("disabled", func(t *testing.T) {
		topic := "persistent://public/default/gc-off"
		b, clk, _ := gcSetup(t, Options{Lifecycle: Lifecycle{DisableInactiveTopicDeletion: true}}, topic)
		clk.Advance(minute)
		clk.Advance(minute)
		assert.True(t, loaded(b, topic))
	})
	t.Run("retention", func(t *testing.T) {
		topic := "persistent://public/default/gc-retained"
		b, clk, _ := gcSetup(t, Options{Retention: Retention{Time: -1, Size: -1}}, topic)
		clk.Advance(minute)
		clk.Advance(minute)
		assert.True(t, loaded(b, topic), "infinite retention keeps it")
	})
	t.Run("namespace policy", func(t *testing.T) {
		topic := "persistent://public/default/gc-ns"
		b, clk, _ := gcSetup(t, Options{}, topic)
		setPolicy(t, b, "/admin/v2/namespaces/public/default/inactiveTopicPolicies",
			`{"inactiveTopicDeleteMode":"delete_when_no_subscriptions","maxInactiveDurationSeconds":600,"deleteWhileInactive":true}`)
		for range 9 {
			clk.Advance(minute)
		}
		assert.True(t, loaded(b, topic), "600 s not reached")
		clk.Advance(minute)
		assert.False(t, loaded(b, topic))
	})
	t.Run("topic policy", func(t *testing.T) {
		topic := "persistent://public/default/gc-topic"
		b, clk, _ := gcSetup(t, Options{}, topic)
		setPolicy(t, b, "/admin/v2/persistent/public/default/gc-topic/inactiveTopicPolicies",
			`{"inactiveTopicDeleteMode":"delete_when_no_subscriptions","maxInactiveDurationSeconds":60,"deleteWhileInactive":false}`)
		clk.Advance(minute)
		clk.Advance(minute)
		assert.True(t, loaded(b, topic))
	})
}

// TestInactivePartitionedTopicMetadata: the partitions of an inactive
// partitioned topic are deleted; its metadata goes too with
// DeleteInactivePartitionedTopicMetadata, and stays without.
func TestInactivePartitionedTopicMetadata(t *testing.T) {
	for _, del := range []bool{false, true} {
		clk := NewFakeClock(ttlT0)
		b := RunT(t, Options{Clock: clk, Lifecycle: Lifecycle{DeleteInactivePartitionedTopicMetadata: del}})
		base := "persistent://public/default/gc-parts"
		require.NoError(t, b.CreatePartitionedTopic(base, 2))
		c := dialKS(t, b)
		for i := range 2 {
			id := uint64(i + 1)
			c.producer(engine.PartitionName(base, i), id).Send("k", "m")
			c.closeProducer(id)
		}
		clk.Advance(time.Minute)
		for i := range 2 {
			name, _ := engine.ParseTopic(engine.PartitionName(base, i))
			inMemory := b.eng.LoadedTopic(name.Full) != nil
			assert.False(t, inMemory, "partition %d deleted", i)
		}
		assert.Equal(t, map[bool]int{false: 2, true: 0}[del], b.eng.PartitionCount(base), "metadata kept unless enabled")
	}
}

// TestInactiveTopicSweepDoesNotRace deletes topics while clients come and
// go on them (run with -race): a client that finds the topic while it is
// deleted gets it again, new.
func TestInactiveTopicSweepDoesNotRace(t *testing.T) {
	clk := NewFakeClock(ttlT0)
	b := RunT(t, Options{Clock: clk, Lifecycle: Lifecycle{InactiveTopicCheckInterval: time.Second, InactiveTopicMaxDuration: time.Second}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 200 {
			clk.Advance(time.Second)
		}
	}()
	c := dialKS(t, b)
	for i := range 50 {
		id := uint64(i + 1)
		topic := "persistent://public/default/gc-race"
		rid := c.nextRID()
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
			Topic: &topic, ProducerId: &id, RequestId: &rid, ProducerName: gproto.String("p")}})
		if c.answer(rid).GetProducerSuccess() != nil {
			rid = c.nextRID()
			c.Send(&proto.BaseCommand{Type: proto.BaseCommand_CLOSE_PRODUCER.Enum(), CloseProducer: &proto.CommandCloseProducer{ProducerId: &id, RequestId: &rid}})
			c.readUntil(proto.BaseCommand_SUCCESS)
		}
	}
	<-done
}

// TestInactiveNonPersistentTopicDeleted: non-persistent topics are deleted
// for inactivity too (Pulsar's NonPersistentTopic.checkGC).
func TestInactiveNonPersistentTopicDeleted(t *testing.T) {
	topic := "non-persistent://public/default/gc-np"
	b, clk, _ := gcSetup(t, Options{}, topic)
	require.True(t, loaded(b, topic))
	clk.Advance(time.Minute)
	assert.False(t, loaded(b, topic))
}
