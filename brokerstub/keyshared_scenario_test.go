package brokerstub

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub/keyorder"
)

// Named Key_Shared scenarios: the ones that broke Pulsar's earlier
// dispatchers (PIP-282's two issues, apache/pulsar#10762) and the
// KeySharedSubscriptionTest cases of PIP-379, driven through the protocol.
// Every consumer has its own connection; sync is a barrier, so each step
// sees exactly what the broker dispatched until then.

// TestKeySharedPIP282Scenario1: entries 1:6..1:11 (here the topic's first
// six entries); key-a goes to c1, which has one permit and never
// acknowledges 1:6; key-b goes to c2. c3 joins and takes key-a: it must get
// nothing of key-a while c1 holds 1:6 (the old dispatcher sent it 1:7 and
// 1:8 at once). When c1 disconnects, c3 gets 1:6 before 1:7 and 1:8.
//
// Protects internal/keyshared/keyshared.go, KeyShared.Add:
// "k.registerDraining(before)", which makes key-a draining at c1 when c3
// takes it (TestKeySharedPIP282Scenario2 fails without it too).
// The mutation test (seed_mutation_test.go, PULSARGO_MUTATION=1) checks
// that this test fails without it.
func TestKeySharedPIP282Scenario1(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/pip282-1"
	keyA := keysFor(t, 1, []string{"c1", "c2"}, "c1", "c3", "c3")[0]
	keyB := keysFor(t, 1, []string{"c1", "c2"}, "c2", "c3", "c2")[0]
	var chk keyorder.Checker

	c1, c2, c3 := dialKS(t, b), dialKS(t, b), dialKS(t, b)
	c1.mustSubscribe(topic, 1, "c1", 1)
	c2.mustSubscribe(topic, 2, "c2", 1000)
	p := dialKS(t, b).producer(topic, 1)
	var e []Position
	for i, k := range []string{keyA, keyA, keyA, keyB, keyB, keyB} {
		e = append(e, p.Send(k, fmt.Sprint("m", i)))
	}
	got1, got2 := c1.sync(1), c2.sync(2)
	record(t, &chk, "c1", got1)
	record(t, &chk, "c2", got2)
	require.Equal(t, []Position{e[0]}, positions(got1))
	require.Equal(t, []Position{e[3], e[4], e[5]}, positions(got2))

	c3.mustSubscribe(topic, 3, "c3", 1000)
	assert.Empty(t, c3.sync(3), "key-a is draining at c1")
	st, err := b.KeyShared(topic, "s")
	require.NoError(t, err)
	require.Len(t, st.Consumers, 3)
	require.Len(t, st.Consumers[0].DrainingHashes, 1)
	assert.Equal(t, st.Hash([]byte(keyA)), st.Consumers[0].DrainingHashes[0].Hash)
	assert.Equal(t, 1, st.Consumers[0].DrainingHashes[0].Unacked)
	assert.Equal(t, 2, st.ReplaySize, "1:7 and 1:8 wait")

	require.NoError(t, chk.Left("c1"))
	require.NoError(t, c1.nc.Close())
	waitConsumers(t, b, topic, 2)
	got3 := c3.sync(3)
	record(t, &chk, "c3", got3)
	assert.Equal(t, []Position{e[0], e[1], e[2]}, positions(got3), "1:6 first, then 1:7, 1:8")
	assert.NoError(t, chk.Err())
}

// TestKeySharedPIP282Scenario2: c1 gets 2:1 (key-a) and, having no permits
// left, 2:2 waits for replay; c3 joins and takes key-a; c1 disconnects: c3
// gets 2:1 before 2:2 (the old dispatcher sent 2:2 first).
//
// Protects internal/keyshared/route.go, Pass.Route: the branch
// "} else if k.draining.ShouldBlock(id, e.Hash) {", which keeps the
// replayed 2:2 from c3 while key-a drains at c1.
// The mutation test (seed_mutation_test.go, PULSARGO_MUTATION=1) checks
// that this test fails without it.
func TestKeySharedPIP282Scenario2(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/pip282-2"
	keyA := keysFor(t, 1, []string{"c1", "c2"}, "c1", "c3", "c3")[0]
	var chk keyorder.Checker

	c1, c2, c3 := dialKS(t, b), dialKS(t, b), dialKS(t, b)
	c1.mustSubscribe(topic, 1, "c1", 1)
	c2.mustSubscribe(topic, 2, "c2", 1000)
	p := dialKS(t, b).producer(topic, 1)
	e1 := p.Send(keyA, "2:1")
	e2 := p.Send(keyA, "2:2")
	got1 := c1.sync(1)
	record(t, &chk, "c1", got1)
	require.Equal(t, []Position{e1}, positions(got1))
	st, err := b.KeyShared(topic, "s")
	require.NoError(t, err)
	require.Equal(t, 1, st.ReplaySize, "2:2 waits for replay")

	c3.mustSubscribe(topic, 3, "c3", 1000)
	assert.Empty(t, c3.sync(3), "2:2 must not go to c3 while c1 holds 2:1")

	require.NoError(t, chk.Left("c1"))
	c1.closeConsumer(1)
	got3 := c3.sync(3)
	record(t, &chk, "c3", got3)
	assert.Equal(t, []Position{e1, e2}, positions(got3))
	assert.Empty(t, c2.sync(2))
	assert.NoError(t, chk.Err())
}

// TestKeyShared10762 is apache/pulsar#10762's scenario: the replay queue
// holds a1 (key-a, for c1) and b1 (key-b, for c2); c1 cannot take a1 (no
// permits); c2 gets permits, and the dispatcher goes on to read b2 (key-b,
// for c2): b2 must not reach c2 before b1.
//
// Protects internal/keyshared/route.go, Dispatch: the replay sweep goes on
// past an entry Route refuses ("i++ // go on past it" and its continue);
// a sweep that stops there (break), or reading new entries before the
// sweep, lets b2 overtake b1. (Pulsar's own guard, a new entry waits while
// its hash is in the replay queue, cannot fire in this dispatcher, which
// offers the whole queue before every read.) The mutation test in
// seed_mutation_test.go checks that this test fails with either.
func TestKeyShared10762(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/ks-10762"
	keyA := keysFor(t, 1, []string{"c1", "c2"}, "c1", "", "")[0]
	keyB := keysFor(t, 1, []string{"c1", "c2"}, "c2", "", "")[0]
	var chk keyorder.Checker

	c1, c2 := dialKS(t, b), dialKS(t, b)
	c1.mustSubscribe(topic, 1, "c1", 1)
	c2.mustSubscribe(topic, 2, "c2", 1)
	p := dialKS(t, b).producer(topic, 1)
	a1 := p.Send(keyA, "a1")
	b1 := p.Send(keyB, "b1")
	got1, got2 := c1.sync(1), c2.sync(2)
	record(t, &chk, "c1", got1)
	record(t, &chk, "c2", got2)
	require.Equal(t, []Position{a1}, positions(got1))
	require.Equal(t, []Position{b1}, positions(got2))

	// Both give their message back with no permits left: replay {a1, b1}.
	c1.redeliver(1, a1)
	c2.redeliver(2, b1)
	require.Empty(t, c1.sync(1))
	require.Empty(t, c2.sync(2))
	require.NoError(t, chk.Released("c1", kid(a1)))
	require.NoError(t, chk.Released("c2", kid(b1)))
	st, err := b.KeyShared(topic, "s")
	require.NoError(t, err)
	require.Equal(t, 2, st.ReplaySize, "a1 and b1 wait for replay")

	// b2 is stored while no consumer has permits, so it is not read yet.
	// Then c2 can take b1 again (c1 still cannot take a1), and the same
	// dispatch pass sweeps the replay queue and reads b2: b1 must go first.
	b2 := p.Send(keyB, "b2")
	require.Empty(t, c2.sync(2), "c2 has no permits")
	c2.flow(2, 2)
	got2 = c2.sync(2)
	record(t, &chk, "c2", got2)
	assert.Equal(t, []Position{b1, b2}, positions(got2), "b1's redelivery before b2")
	assert.Empty(t, c1.sync(1), "c1 has no permits")
	assert.NoError(t, chk.Err())
}

// TestKeySharedAddConsumerWhileAnotherHoldsUnacked
// (testOrderingWhenAddingConsumers): c1 holds ten unacknowledged messages
// of ten keys; c2 joins; ten more messages of the same keys. c2 gets
// nothing of the keys that moved to it until c1 acknowledges their
// messages; then it gets the newer ones, in order.
func TestKeySharedAddConsumerWhileAnotherHoldsUnacked(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/ks-adding"
	var chk keyorder.Checker
	c1, c2 := dialKS(t, b), dialKS(t, b)
	c1.mustSubscribe(topic, 1, "c1", 100)
	p := dialKS(t, b).producer(topic, 1)
	keys := make([]string, 10)
	var first []Position
	for i := range keys {
		keys[i] = fmt.Sprint(i)
		first = append(first, p.Send(keys[i], fmt.Sprint(i)))
	}
	got1 := c1.sync(1)
	record(t, &chk, "c1", got1)
	require.Equal(t, first, positions(got1))

	c2.mustSubscribe(topic, 2, "c2", 100)
	st, err := b.KeyShared(topic, "s")
	require.NoError(t, err)
	moved := map[string]bool{}
	for _, k := range keys {
		c, ok := st.ConsumerFor([]byte(k))
		require.True(t, ok)
		moved[k] = c.Name == "c2"
	}
	require.NotEmpty(t, st.Consumers[0].DrainingHashes, "some keys moved to c2")
	var second []Position
	for i := 10; i < 20; i++ {
		second = append(second, p.Send(keys[i%10], fmt.Sprint(i)))
	}
	assert.Empty(t, c2.sync(2), "every key of c2 is draining at c1")
	got1 = c1.sync(1)
	record(t, &chk, "c1", got1)
	var stayed, movedLater []Position
	for i, pos := range second {
		if moved[keys[i]] {
			movedLater = append(movedLater, pos)
		} else {
			stayed = append(stayed, pos)
		}
	}
	assert.Equal(t, stayed, positions(got1), "keys that stayed with c1 flow on")

	// c1 acknowledges its messages of the moved keys: c2 gets theirs.
	var ackMoved []Position
	for i, pos := range first {
		if moved[keys[i]] {
			ackMoved = append(ackMoved, pos)
			require.NoError(t, chk.Acked("c1", kid(pos)))
		}
	}
	c1.ack(1, ackMoved...)
	got2 := c2.sync(2)
	record(t, &chk, "c2", got2)
	assert.Equal(t, movedLater, positions(got2))
	st, err = b.KeyShared(topic, "s")
	require.NoError(t, err)
	assert.Empty(t, st.Consumers[0].DrainingHashes)
	assert.NoError(t, chk.Err())
}

// TestKeySharedRemoveFirstConsumer (testRemoveFirstConsumer): c1 prefetches
// ten messages (its ten permits) and acknowledges none; c2 joins; ten more
// are published: c2 gets nothing. c1 closes: c2 gets all twenty, in order.
func TestKeySharedRemoveFirstConsumer(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/ks-remove-first"
	var chk keyorder.Checker
	c1, c2 := dialKS(t, b), dialKS(t, b)
	c1.mustSubscribe(topic, 1, "c1", 10)
	p := dialKS(t, b).producer(topic, 1)
	var all []Position
	for i := range 10 {
		all = append(all, p.Send(fmt.Sprint(i%10), fmt.Sprint(i)))
	}
	got1 := c1.sync(1)
	record(t, &chk, "c1", got1)
	require.Equal(t, all, positions(got1))

	c2.mustSubscribe(topic, 2, "c2", 10)
	for i := 10; i < 20; i++ {
		all = append(all, p.Send(fmt.Sprint(i%10), fmt.Sprint(i)))
	}
	assert.Empty(t, c2.sync(2), "c2 gets nothing until c1 is done")
	assert.Empty(t, c1.sync(1), "c1 has no permits")

	require.NoError(t, chk.Left("c1"))
	c1.closeConsumer(1)
	var got2 []ksMsg
	for len(got2) < 20 {
		msgs := c2.sync(2)
		require.NotEmpty(t, msgs, "c2 stalled after %d messages", len(got2))
		record(t, &chk, "c2", msgs)
		for _, m := range msgs {
			require.NoError(t, chk.Acked("c2", kid(m.Pos)))
		}
		c2.ack(2, positions(msgs)...)
		c2.flow(2, uint32(len(msgs)))
		got2 = append(got2, msgs...)
	}
	assert.Equal(t, all, positions(got2))
	assert.NoError(t, chk.Err())
}

// TestKeySharedSlowConsumerDoesNotBlockOthers: one consumer takes a single
// message and never acknowledges it; the others get every message of their
// keys (within the look-ahead limit, by default 2000 per consumer).
func TestKeySharedSlowConsumerDoesNotBlockOthers(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/ks-slow"
	names := []string{"slow", "fast1", "fast2"}
	cs := make([]*ksClient, 3)
	for i, n := range names {
		cs[i] = dialKS(t, b)
		permits := uint32(1000)
		if i == 0 {
			permits = 1
		}
		cs[i].mustSubscribe(topic, uint64(i+1), n, permits)
	}
	st, err := b.KeyShared(topic, "s")
	require.NoError(t, err)
	want := map[string]int{}
	p := dialKS(t, b).producer(topic, 1)
	for i := range 300 {
		k := fmt.Sprint("k", i%30)
		c, ok := st.ConsumerFor([]byte(k))
		require.True(t, ok)
		want[c.Name]++
		p.Send(k, fmt.Sprint(i))
	}
	require.Positive(t, want["slow"])
	assert.Len(t, cs[0].sync(1), 1)
	assert.Len(t, cs[1].sync(2), want["fast1"])
	assert.Len(t, cs[2].sync(3), want["fast2"])
	st, err = b.KeyShared(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, 6000, st.LookAheadLimit)
	assert.Equal(t, want["slow"]-1, st.ReplaySize, "everything of the slow consumer's keys waits")
}

// TestKeySharedLookAheadIsBounded (testReadAheadLimit): when every new entry
// belongs to a consumer without permits, reading stops at the look-ahead
// limit instead of running through the topic.
func TestKeySharedLookAheadIsBounded(t *testing.T) {
	b := RunT(t, Options{KeyShared: KeySharedOptions{LookAheadPerSubscription: 20}})
	topic := "persistent://public/default/ks-lookahead"
	keys := keysFor(t, 5, []string{"c1", "c2"}, "c1", "", "")
	c1, c2 := dialKS(t, b), dialKS(t, b)
	c1.mustSubscribe(topic, 1, "c1", 0)
	c2.mustSubscribe(topic, 2, "c2", 1000)
	p := dialKS(t, b).producer(topic, 1)
	var all []Position
	for i := range 100 {
		all = append(all, p.Send(keys[i%5], fmt.Sprint(i)))
	}
	st, err := b.KeyShared(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, 20, st.ReplaySize)
	assert.Equal(t, all[19], st.ReadPosition, "read no further than the limit")
	c1.flow(1, 1000)
	assert.Equal(t, all, positions(c1.sync(1)))
}

// TestKeySharedReconnectingConsumers (testOrderingAfterReconnects): three
// consumers with small prefetch windows; messages keep coming while the
// consumers are closed, crash and come back under the same names, over and
// over. The application side processes (and acknowledges) messages from a
// local queue, dropping what it had prefetched when its consumer goes: the
// position it sees per key never decreases, and the log passes the checker.
func TestKeySharedReconnectingConsumers(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/ks-reconnect"
	var chk keyorder.Checker
	type app struct {
		name  string
		inst  int
		c     *ksClient
		queue []ksMsg
	}
	apps := make([]*app, 3)
	connect := func(a *app) {
		a.inst++
		a.c = dialKS(t, b)
		a.c.mustSubscribe(topic, 1, a.name, 5)
		a.queue = nil
	}
	for i := range apps {
		apps[i] = &app{name: fmt.Sprint("c", i+1)}
		connect(apps[i])
	}
	label := func(a *app) string { return fmt.Sprintf("%s#%d", a.name, a.inst) }
	lastSeen := map[string]Position{}
	process := func(a *app, n int) {
		a.queue = append(a.queue, a.c.sync(1)...)
		n = min(n, len(a.queue))
		for _, m := range a.queue[:n] {
			require.NoError(t, chk.Received(label(a), m.Key, kid(m.Pos)))
			if prev, ok := lastSeen[m.Key]; ok {
				require.False(t, m.Pos.Ledger < prev.Ledger || m.Pos.Ledger == prev.Ledger && m.Pos.Entry < prev.Entry,
					"key %s went back from %v to %v", m.Key, prev, m.Pos)
			}
			lastSeen[m.Key] = m.Pos
			require.NoError(t, chk.Acked(label(a), kid(m.Pos)))
		}
		if n > 0 {
			a.c.ack(1, positions(a.queue[:n])...)
			a.c.flow(1, uint32(n))
		}
		a.queue = a.queue[n:]
	}
	p := dialKS(t, b).producer(topic, 1)
	sent := 0
	for round := range 60 {
		for range 10 {
			p.Send(fmt.Sprint("k", sent%25), fmt.Sprint(sent))
			sent++
		}
		for i, a := range apps {
			process(a, (round+i)%4)
		}
		a := apps[round%3]
		require.NoError(t, chk.Left(label(a)))
		if round%2 == 0 {
			a.c.closeConsumer(1)
		} else {
			require.NoError(t, a.c.nc.Close())
			waitConsumers(t, b, topic, 2)
		}
		connect(a)
	}
	// Drain.
	seen := 0
	for range 200 {
		for _, a := range apps {
			process(a, 100)
		}
		cur, _, err := b.Cursor(topic, "s")
		require.NoError(t, err)
		if cur.MarkDelete.Entry == int64(sent-1) {
			seen = sent
			break
		}
	}
	assert.Equal(t, sent, seen, "every message acknowledged")
	assert.NoError(t, chk.Err())
}

// TestKeySharedDistribution: three consumers, 300 keys, one message each:
// every consumer gets an even share within ±40%.
func TestKeySharedDistribution(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/ks-distribution"
	cs := make([]*ksClient, 3)
	for i := range cs {
		cs[i] = dialKS(t, b)
		cs[i].mustSubscribe(topic, uint64(i+1), fmt.Sprintf("consumer-%c", 'a'+i), 1000)
	}
	p := dialKS(t, b).producer(topic, 1)
	for i := range 300 {
		p.Send(fmt.Sprint("key-", i), "x")
	}
	total := 0
	for i, c := range cs {
		n := len(c.sync(uint64(i + 1)))
		total += n
		assert.InDelta(t, 100, n, 40, "consumer %d got %d", i, n)
	}
	assert.Equal(t, 300, total)
}
