package pulsar

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestDefaultNackBackoffPolicyNext: the official default, 1 s doubling per
// redelivery, at most 10 min, also for counts whose shift overflows.
func TestDefaultNackBackoffPolicyNext(t *testing.T) {
	p := defaultNackBackoffPolicy{}
	for count, want := range map[uint32]time.Duration{
		0: time.Second, 1: 2 * time.Second, 3: 8 * time.Second, 9: 512 * time.Second,
		10: 10 * time.Minute, 40: 10 * time.Minute, 1<<32 - 1: 10 * time.Minute,
	} {
		if got := p.Next(count); got != want {
			t.Errorf("Next(%d) = %v, want %v", count, got, want)
		}
	}
}

// linearBackoff waits count+1 times its unit.
type linearBackoff time.Duration

func (l linearBackoff) Next(count uint32) time.Duration {
	return time.Duration(count+1) * time.Duration(l)
}

// TestNackBackoffPolicyDelays: with a NackBackoffPolicy each Nack(msg)
// waits the policy's delay for the message's redelivery count (measured on
// the bubble's clock); the default policy doubles from 1 s; NackID keeps
// NackRedeliveryDelay.
func TestNackBackoffPolicyDelays(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts ConsumerOptions
		want []time.Duration
	}{
		{"custom", ConsumerOptions{NackRedeliveryDelay: 7 * time.Second, NackBackoffPolicy: linearBackoff(3 * time.Second)}, []time.Duration{3 * time.Second, 6 * time.Second, 9 * time.Second}},
		{"default", ConsumerOptions{NackRedeliveryDelay: 7 * time.Second, EnableDefaultNackBackoffPolicy: true}, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		{"fixed", ConsumerOptions{NackRedeliveryDelay: 5 * time.Second}, []time.Duration{5 * time.Second, 5 * time.Second, 5 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := newCSEnv(t)
				topic := csTopic()
				p := testProducer(t, v.c, ProducerOptions{Topic: topic})
				if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("x")}); err != nil {
					t.Fatal(err)
				}
				opts := tc.opts
				opts.Topic, opts.Type = topic, Shared
				c := v.subscribe(opts)
				m := csRecv(t, c)
				for i, want := range tc.want {
					start := time.Now()
					c.Nack(m)
					m = csRecv(t, c)
					// The engine's nack timer fires at the delay; the
					// redelivery then takes a round trip of bubble time 0.
					if got := time.Since(start); got != want {
						t.Fatalf("nack %d: redelivered after %v, want %v", i, got, want)
					}
					if m.RedeliveryCount() != uint32(i+1) {
						t.Fatalf("nack %d: redelivery count %d", i, m.RedeliveryCount())
					}
				}
				start := time.Now()
				c.NackID(m.ID())
				csRecv(t, c)
				if got, want := time.Since(start), opts.NackRedeliveryDelay; got != want {
					t.Fatalf("NackID: redelivered after %v, want NackRedeliveryDelay %v", got, want)
				}
			})
		})
	}
}
