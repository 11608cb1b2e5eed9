package pulsar

import (
	"errors"
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
				opts.NackPrecisionBit = new(int64(0)) // exact times
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

// TestNackPrecisionBitWindows: as the official nack tracker, a nack's
// redelivery time is rounded down to a multiple of 2^NackPrecisionBit ms
// (8, 256 ms, by default), so nacks due within one window are redelivered
// together at its start (at once when that is past); 0 keeps the exact
// time; a negative value is refused.
func TestNackPrecisionBitWindows(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name   string
		bits   *int64
		nackAt [2]time.Duration // after a multiple of 1024 ms of Unix time
		want   [2]time.Duration // the redeliveries, from the same start
	}{
		// 1 s delay: due at 1010 and 1200 ms, trimmed to 768 and 1024.
		{"default 8", nil, [2]time.Duration{10 * ms, 200 * ms}, [2]time.Duration{768 * ms, 1024 * ms}},
		// 1010 trimmed to 0, past: redelivered as it is nacked.
		{"10", new(int64(10)), [2]time.Duration{10 * ms, 200 * ms}, [2]time.Duration{10 * ms, 1024 * ms}},
		// 1100 and 1400 share the window [1024, 1536).
		{"same window", new(int64(9)), [2]time.Duration{100 * ms, 400 * ms}, [2]time.Duration{1024 * ms, 1024 * ms}},
		{"exact", new(int64(0)), [2]time.Duration{10 * ms, 200 * ms}, [2]time.Duration{1010 * ms, 1200 * ms}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := newCSEnv(t)
				topic := csTopic()
				p := testProducer(t, v.c, ProducerOptions{Topic: topic, DisableBatching: true})
				for _, s := range []string{"a", "b"} {
					if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte(s)}); err != nil {
						t.Fatal(err)
					}
				}
				c := v.subscribe(ConsumerOptions{Topic: topic, Type: Shared, NackRedeliveryDelay: time.Second, NackPrecisionBit: tc.bits})
				first := []Message{csRecv(t, c), csRecv(t, c)}
				const align = 1024
				time.Sleep(time.Duration(align-time.Now().UnixMilli()%align) * ms)
				start := time.Now()
				got := map[string]time.Duration{}
				done := make(chan struct{})
				go func() {
					defer close(done)
					for range 2 {
						m, err := c.Receive(csCtx(t))
						if err != nil {
							return
						}
						got[string(m.Payload())] = time.Since(start)
					}
				}()
				for i, m := range first {
					time.Sleep(tc.nackAt[i] - time.Since(start))
					c.Nack(m)
				}
				<-done
				for i, name := range []string{"a", "b"} {
					if d, ok := got[name]; !ok || d != tc.want[i] {
						t.Errorf("message %s redelivered at %v (received %v), want %v", name, d, ok, tc.want[i])
					}
				}
			})
		})
	}
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		_, err := v.c.Subscribe(ConsumerOptions{Topic: csTopic(), SubscriptionName: "s", NackPrecisionBit: new(int64(-1))})
		if !errors.Is(err, ErrInvalidOptions) {
			t.Fatalf("negative NackPrecisionBit: %v, want ErrInvalidOptions", err)
		}
	})
}
