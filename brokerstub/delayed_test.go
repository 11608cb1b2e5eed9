package brokerstub

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// countingClock counts the timers the broker arms, so that a test can tell
// a dispatcher that waits from one that spins.
type countingClock struct {
	*FakeClock
	armed atomic.Int64
}

func (c *countingClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.armed.Add(1)
	return c.FakeClock.AfterFunc(d, f)
}

var delayT0 = time.Unix(1_700_000_000, 0)

// subscribeTyped attaches consumer id with subscription type typ (initial
// position earliest) and gives it permits.
func (c *ksClient) subscribeTyped(topic, sub string, typ proto.CommandSubscribe_SubType, id uint64, permits uint32) {
	c.t.Helper()
	rid := c.nextRID()
	name := "c" + string(rune('0'+id%10))
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &topic, Subscription: &sub, SubType: typ.Enum(), ConsumerId: &id, RequestId: &rid,
		ConsumerName: &name, InitialPosition: proto.CommandSubscribe_Earliest.Enum()}})
	c.readUntil(proto.BaseCommand_SUCCESS)
	if permits > 0 {
		c.flow(id, permits)
	}
}

// sendAt sends a message with key and a deliver_at_time at (zero: none).
func (p *ksProducer) sendAt(key, payload string, at time.Time) Position {
	md := &proto.MessageMetadata{PartitionKey: &key}
	if !at.IsZero() {
		md.DeliverAtTime = gproto.Int64(at.UnixMilli())
	}
	return p.sendMeta(md, payload)
}

func payloads(msgs []ksMsg) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Payload
	}
	return out
}

// TestDelayedSharedHeldUntilTime: on a Shared subscription a message with a
// deliver_at_time is held until then, without holding back later messages;
// with strict delivery not a millisecond early.
func TestDelayedSharedHeldUntilTime(t *testing.T) {
	clk := NewFakeClock(delayT0)
	b := RunT(t, Options{Clock: clk, DelayedDeliveryStrict: true})
	topic := "persistent://public/default/delay-shared"
	c := dialKS(t, b)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 100)
	p := c.producer(topic, 1)
	p.sendAt("k", "late", delayT0.Add(10*time.Second))
	now := p.sendAt("k", "now", time.Time{})
	assert.Equal(t, []string{"now"}, payloads(c.sync(1)), "the delayed message is held, the next one is not")
	c.ack(1, now)

	clk.Advance(10*time.Second - time.Millisecond)
	assert.Empty(t, c.sync(1), "not before its time")
	clk.Advance(time.Millisecond)
	got := c.sync(1)
	require.Equal(t, []string{"late"}, payloads(got), "delivered at its time, by the timer alone")

	// Redelivery and acks work on it like on any message.
	c.redeliver(1, got[0].Pos)
	assert.Equal(t, []string{"late"}, payloads(c.sync(1)))
	c.ack(1, got[0].Pos)
	c.redeliver(1)
	assert.Empty(t, c.sync(1))
}

// TestDelayedTickEarly: by default (Pulsar's non-strict delivery, tick 1 s)
// a message due within a tick is delivered at once.
func TestDelayedTickEarly(t *testing.T) {
	clk := NewFakeClock(delayT0)
	b := RunT(t, Options{Clock: clk})
	topic := "persistent://public/default/delay-tick"
	c := dialKS(t, b)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 100)
	p := c.producer(topic, 1)
	p.sendAt("k", "soon", delayT0.Add(500*time.Millisecond))
	p.sendAt("k", "later", delayT0.Add(5*time.Second))
	assert.Equal(t, []string{"soon"}, payloads(c.sync(1)))
	clk.Advance(5 * time.Second)
	assert.Equal(t, []string{"later"}, payloads(c.sync(1)))
}

// TestDelayedNotOnExclusiveFailoverOrWhenDisabled: Exclusive and Failover
// subscriptions deliver at once, as Pulsar; so does every type with
// DisableDelayedDelivery.
func TestDelayedNotOnExclusiveFailoverOrWhenDisabled(t *testing.T) {
	for _, tc := range []struct {
		name    string
		typ     proto.CommandSubscribe_SubType
		disable bool
	}{
		{"exclusive", proto.CommandSubscribe_Exclusive, false},
		{"failover", proto.CommandSubscribe_Failover, false},
		{"shared-disabled", proto.CommandSubscribe_Shared, true},
		{"keyshared-disabled", proto.CommandSubscribe_Key_Shared, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := NewFakeClock(delayT0)
			b := RunT(t, Options{Clock: clk, DisableDelayedDelivery: tc.disable})
			topic := "persistent://public/default/delay-" + tc.name
			c := dialKS(t, b)
			c.subscribeTyped(topic, "s", tc.typ, 1, 100)
			if tc.typ == proto.CommandSubscribe_Failover {
				clk.Advance(time.Second) // the active consumer's failover delay (failover.go)
			}
			p := c.producer(topic, 1)
			p.sendAt("k", "a", delayT0.Add(time.Hour))
			p.sendAt("k", "b", time.Time{})
			assert.Equal(t, []string{"a", "b"}, payloads(c.sync(1)))
		})
	}
}

// TestDelayedAckedBeforeDue: a held message acknowledged by id before its
// time is never delivered.
func TestDelayedAckedBeforeDue(t *testing.T) {
	clk := NewFakeClock(delayT0)
	b := RunT(t, Options{Clock: clk})
	topic := "persistent://public/default/delay-acked"
	c := dialKS(t, b)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 100)
	p := c.producer(topic, 1)
	held := p.sendAt("k", "x", delayT0.Add(time.Minute))
	assert.Empty(t, c.sync(1))
	c.ack(1, held)
	clk.Advance(time.Hour)
	assert.Empty(t, c.sync(1))
	cur, _, err := b.Cursor(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, held, cur.MarkDelete)
}

// TestDelayedSurvivesRestartCrashAndDataDir: the delay is in the stored
// entry, so after Restart, Crash, and a new broker on the same data dir the
// message is still held until its time — and then delivered.
func TestDelayedSurvivesRestartCrashAndDataDir(t *testing.T) {
	for _, how := range []string{"restart", "crash", "datadir"} {
		t.Run(how, func(t *testing.T) {
			clk := NewFakeClock(delayT0)
			opts := Options{Clock: clk}
			if how == "datadir" {
				opts.DataDir = t.TempDir()
			}
			b := RunT(t, opts)
			topic := "persistent://public/default/delay-" + how
			c := dialKS(t, b)
			c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 100)
			p := c.producer(topic, 1)
			p.sendAt("k", "held", delayT0.Add(time.Hour))
			now := p.sendAt("k", "now", time.Time{})
			require.Equal(t, []string{"now"}, payloads(c.sync(1)))
			c.ack(1, now)
			switch how {
			case "restart":
				require.NoError(t, b.Restart())
			case "crash":
				require.NoError(t, b.Crash())
			case "datadir":
				require.NoError(t, b.Close())
				b = RunT(t, opts)
			}
			c = dialKS(t, b)
			c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 2, 100)
			// The ack of "now" was persisted at once (the first in its
			// rate-limit window), so only "held" is outstanding.
			require.Empty(t, c.sync(2), "still held after %s", how)
			clk.Advance(time.Hour)
			assert.Equal(t, []string{"held"}, payloads(c.sync(2)))
		})
	}
}

// TestDelayedDispatcherWaits: with only delayed messages pending, the
// dispatcher arms one timer for the next delivery time instead of polling:
// a hundred messages due at the same time arm it once, and time passing
// before then arms nothing more.
func TestDelayedDispatcherWaits(t *testing.T) {
	clk := &countingClock{FakeClock: NewFakeClock(delayT0)}
	b := RunT(t, Options{Clock: clk, CursorFlushInterval: 24 * time.Hour})
	topic := "persistent://public/default/delay-wait"
	c := dialKS(t, b)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 1000)
	p := c.producer(topic, 1)
	c.sync(1)
	base := clk.armed.Load()
	for i := range 100 {
		p.sendAt("k", string(rune('a'+i%26)), delayT0.Add(time.Minute))
	}
	require.Empty(t, c.sync(1))
	assert.Equal(t, int64(1), clk.armed.Load()-base, "one timer for the hundred")
	for range 50 {
		clk.Advance(time.Second)
	}
	require.Empty(t, c.sync(1))
	assert.Equal(t, int64(1), clk.armed.Load()-base, "waiting arms nothing more")
	clk.Advance(10 * time.Second)
	assert.Len(t, c.sync(1), 100)
}
