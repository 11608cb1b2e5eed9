package brokerstub

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub/keyorder"
)

// TestDelayedKeySharedOrder is Key_Shared with delayed messages as Pulsar
// 4.x defines it: a delayed message does not hold back later messages of
// its key (they are delivered now, in order); when it falls due it is
// delivered to the consumer that owns its key, and while that consumer has
// no permits it waits in the replay queue with its hash, so newer messages
// of the key wait behind it. The keyorder checker, told which messages
// were delayed, accepts the log.
func TestDelayedKeySharedOrder(t *testing.T) {
	clk := NewFakeClock(delayT0)
	b := RunT(t, Options{Clock: clk, DelayedDeliveryStrict: true})
	topic := "persistent://public/default/delay-ks"
	c := dialKS(t, b)
	c.mustSubscribe(topic, 1, "c1", 2)
	p := c.producer(topic, 1)
	var chk keyorder.Checker

	d0 := p.sendAt("k", "d0", delayT0.Add(10*time.Second))
	m1 := p.sendAt("k", "m1", time.Time{})
	m2 := p.sendAt("k", "m2", time.Time{})
	got := c.sync(1)
	require.Equal(t, []string{"m1", "m2"}, payloads(got), "later messages of the key are not held behind the delayed one")
	record(t, &chk, "c1", got)

	// d0 falls due while c1 has no permits left: it waits with its hash,
	// and m3 of the same key waits behind it.
	clk.Advance(10 * time.Second)
	p.sendAt("k", "m3", time.Time{})
	require.Empty(t, c.sync(1))
	st, err := b.KeyShared(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, 1, st.ReplaySize, "due d0 waits for replay (m3 is not read while no consumer has permits)")

	c.ack(1, m1, m2)
	for _, pos := range []Position{m1, m2} {
		require.NoError(t, chk.Acked("c1", kid(pos)))
	}
	c.flow(1, 10)
	got = c.sync(1)
	require.Equal(t, []string{"d0", "m3"}, payloads(got), "the due message first, then the newer one")
	for _, m := range got {
		require.NoError(t, chk.Add(keyorder.Event{Kind: keyorder.Received, Consumer: "c1", Key: m.Key,
			ID: kid(m.Pos), Delayed: m.Pos == d0}))
	}
	require.NoError(t, chk.Err())

	// Without the Delayed mark, d0's first delivery after m1's breaks rule (a).
	var strict keyorder.Checker
	for _, pos := range []Position{m1, m2, d0} {
		_ = strict.Received("c1", "k", kid(pos))
	}
	var v *keyorder.Violation
	require.ErrorAs(t, strict.Err(), &v)
	assert.Equal(t, keyorder.FirstDeliveryOrder, v.Rule)
}

// TestDelayedKeySharedTwoConsumers: due delayed messages go to the
// consumer that owns their key, each key to one consumer.
func TestDelayedKeySharedTwoConsumers(t *testing.T) {
	clk := NewFakeClock(delayT0)
	b := RunT(t, Options{Clock: clk})
	topic := "persistent://public/default/delay-ks2"
	c := dialKS(t, b)
	c.mustSubscribe(topic, 1, "c1", 100)
	c.mustSubscribe(topic, 2, "c2", 100)
	k1 := keysFor(t, 1, []string{"c1", "c2"}, "c1", "", "")[0]
	k2 := keysFor(t, 1, []string{"c1", "c2"}, "c2", "", "")[0]
	p := c.producer(topic, 1)
	for i := range 4 {
		p.sendAt(k1, "a"+string(rune('0'+i)), delayT0.Add(time.Duration(4-i)*time.Minute))
		p.sendAt(k2, "b"+string(rune('0'+i)), delayT0.Add(time.Duration(4-i)*time.Minute))
	}
	require.Empty(t, c.sync(1))
	require.Empty(t, c.sync(2))
	clk.Advance(2 * time.Minute)
	assert.Equal(t, []string{"a2", "a3"}, payloads(c.sync(1)))
	assert.Equal(t, []string{"b2", "b3"}, payloads(c.sync(2)))
	clk.Advance(2 * time.Minute)
	assert.Equal(t, []string{"a0", "a1"}, payloads(c.sync(1)))
	assert.Equal(t, []string{"b0", "b1"}, payloads(c.sync(2)))
}

// TestDelayedKeySharedDueBlocksNewer: once a delayed message is due and its
// consumer has no permits, it waits in the replay queue with its hash, and
// newer messages of its key read meanwhile (another consumer has permits,
// so reading goes on) wait behind it, as Pulsar's replay-hash check does.
func TestDelayedKeySharedDueBlocksNewer(t *testing.T) {
	clk := NewFakeClock(delayT0)
	b := RunT(t, Options{Clock: clk, DelayedDeliveryStrict: true})
	topic := "persistent://public/default/delay-ks-block"
	c := dialKS(t, b)
	c.mustSubscribe(topic, 1, "c1", 1)
	c.mustSubscribe(topic, 2, "c2", 100)
	k := keysFor(t, 1, []string{"c1", "c2"}, "c1", "", "")[0]
	p := c.producer(topic, 1)

	p.sendAt(k, "d0", delayT0.Add(10*time.Second))
	m1 := p.sendAt(k, "m1", time.Time{})
	require.Equal(t, []string{"m1"}, payloads(c.sync(1)), "not held behind d0")
	clk.Advance(10 * time.Second) // d0 due; c1 has no permits
	p.sendAt(k, "m2", time.Time{})
	require.Empty(t, c.sync(1))
	require.Empty(t, c.sync(2), "the key stays with c1")
	st, err := b.KeyShared(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, 2, st.ReplaySize, "d0 waits with its hash, m2 behind it")

	c.ack(1, m1)
	c.flow(1, 10)
	assert.Equal(t, []string{"d0", "m2"}, payloads(c.sync(1)))
}
