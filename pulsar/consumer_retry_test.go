package pulsar

import (
	"errors"
	"math"
	"regexp"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/proto"
)

// TestReconsumeLaterRetriesThenDeadLetters: with RetryEnable a message
// given to ReconsumeLater comes back from "<topic>-<sub>-RETRY" no earlier
// than its delay (deliver_at_time, on the broker's clock), with the
// properties the official client sets; after MaxDeliveries reconsumes it
// goes to "<topic>-<sub>-DLQ" under a producer named as the official
// client names it, and every copy is acknowledged where it came from.
func TestReconsumeLaterRetriesThenDeadLetters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p := testProducer(t, v.c, ProducerOptions{Topic: topic})
		event := time.UnixMilli(1_700_000_000_123)
		sent, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("job"), Key: "k", OrderingKey: "ok",
			EventTime: event, Properties: map[string]string{"app": "v"}})
		if err != nil {
			t.Fatal(err)
		}
		c := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "sub", Name: "worker", Type: Shared,
			RetryEnable: true, DLQ: &DLQPolicy{MaxDeliveries: 2}})
		m := csRecv(t, c)
		for round := 1; round <= 2; round++ {
			start := time.Now()
			c.ReconsumeLater(m, 3*time.Second)
			m = csRecv(t, c)
			if waited := time.Since(start); waited < 3*time.Second {
				t.Fatalf("round %d: redelivered after %v, before the 3s delay", round, waited)
			}
			if want := topic + "-sub" + RetryTopicSuffix; m.Topic() != want {
				t.Fatalf("round %d: from %s, want the retry topic %s", round, m.Topic(), want)
			}
			props := m.Properties()
			want := map[string]string{"app": "v", SysPropertyRealTopic: topic, SysPropertyOriginMessageID: sent.String(),
				PropertyOriginMessageID: sent.String(), SysPropertyReconsumeTimes: strconv.Itoa(round), SysPropertyDelayTime: "3000"}
			for k, w := range want {
				if props[k] != w {
					t.Fatalf("round %d: property %s = %q, want %q (all: %v)", round, k, props[k], w, props)
				}
			}
			if string(m.Payload()) != "job" || m.Key() != "k" || m.OrderingKey() != "ok" || !m.EventTime().Equal(event) {
				t.Fatalf("round %d: payload %q key %q ordering key %q event time %v", round, m.Payload(), m.Key(), m.OrderingKey(), m.EventTime())
			}
		}
		c.ReconsumeLaterWithCustomProperties(m, map[string]string{"why": "gave up"}, time.Second)
		dlq := v.subscribe(ConsumerOptions{Topic: topic + "-sub" + DlqTopicSuffix, SubscriptionName: "d"})
		dead := csRecv(t, dlq)
		props := dead.Properties()
		if props[SysPropertyReconsumeTimes] != "3" || props["why"] != "gave up" || props[SysPropertyRealTopic] != topic ||
			props[PropertyOriginMessageID] != sent.String() || string(dead.Payload()) != "job" || dead.Key() != "k" {
			t.Fatalf("dead letter %q key %q properties %v", dead.Payload(), dead.Key(), props)
		}
		if re := regexp.MustCompile("^" + regexp.QuoteMeta(topic+"-sub-worker-") + "[a-z]{5}-DLQ$"); !re.MatchString(dead.ProducerName()) {
			t.Fatalf("dead-letter producer %q", dead.ProducerName())
		}
		v.waitCursor(topic, "sub", allAcked(sent))
		v.waitCursor(topic+"-sub"+RetryTopicSuffix, "sub", func(s brokerstub.CursorState) bool {
			return s.MarkDelete.Entry >= 1 && len(s.Ranges) == 0 // both retry letters acknowledged
		})
		csNone(t, c, 5*time.Second)
	})
}

// TestReconsumeLaterChunked: a message larger than the broker's max
// message size goes through the retry letter topic and on to the
// dead-letter topic whole (the letter producers chunk), and its chunks are
// acknowledged on each topic.
func TestReconsumeLaterChunked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t, brokerstub.Options{MaxMessageSize: 128 << 10})
		topic := csTopic()
		big := csNoise(500<<10, 21)
		id, _, err := v.raw(topic, -1).SendChunked(csCtx(t), big, 100<<10, compress.NONE)
		if err != nil {
			t.Fatal(err)
		}
		c := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "sub", Type: Shared, RetryEnable: true,
			DLQ: &DLQPolicy{MaxDeliveries: 1}})
		m := csRecv(t, c)
		c.ReconsumeLater(m, time.Second)
		again := csRecv(t, c)
		csSame(t, again.Payload(), big)
		if _, ok := again.ID().(ChunkMessageID); !ok {
			t.Fatalf("retried message id %v is not a chunk id", again.ID())
		}
		if again.Properties()[SysPropertyOriginMessageID] != id.String() {
			t.Fatalf("origin %q, want %q", again.Properties()[SysPropertyOriginMessageID], id.String())
		}
		c.ReconsumeLater(again, time.Second)
		dead := csRecv(t, v.subscribe(ConsumerOptions{Topic: topic + "-sub-DLQ", SubscriptionName: "d"}))
		csSame(t, dead.Payload(), big)
		v.waitCursor(topic, "sub", allAcked(id))
		v.waitCursor(topic+"-sub-RETRY", "sub", allAcked(again.ID()))
	})
}

// TestDLQPolicyProducerFields: DeadLetterTopicProducerName names the
// dead-letter producer, InitialSubscriptionName is created with the
// dead-letter topic (so that a subscription joining later at "latest"
// finds the message), and ProducerOptions reach the producer (its codec;
// LZ4 when none is chosen, as the official client).
func TestDLQPolicyProducerFields(t *testing.T) {
	for _, tc := range []struct {
		codec CompressionType
		want  proto.CompressionType
	}{{ZSTD, proto.CompressionType_ZSTD}, {NoCompression, proto.CompressionType_LZ4}} {
		t.Run(tc.want.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := newCSEnv(t)
				topic := csTopic()
				p := testProducer(t, v.c, ProducerOptions{Topic: topic})
				if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("poison")}); err != nil {
					t.Fatal(err)
				}
				dlqTopic := topic + "-dead"
				c := v.subscribe(ConsumerOptions{Topic: topic, Type: Shared, NackRedeliveryDelay: time.Second,
					DLQ: &DLQPolicy{MaxDeliveries: 1, DeadLetterTopic: dlqTopic, DeadLetterTopicProducerName: "undertaker",
						InitialSubscriptionName: "audit", ProducerOptions: ProducerOptions{CompressionType: tc.codec}}})
				c.Nack(csRecv(t, c))
				raw := rawSubscribe(t, v.b, dlqTopic, 0).wait(1, 10*time.Second)
				if got := raw[0].Meta.GetCompression(); got != tc.want {
					t.Fatalf("dead letter compressed with %v, want %v", got, tc.want)
				}
				audit, err := v.c.Subscribe(ConsumerOptions{Topic: dlqTopic, SubscriptionName: "audit",
					SubscriptionInitialPosition: SubscriptionPositionLatest})
				if err != nil {
					t.Fatal(err)
				}
				defer audit.Close()
				dead := csRecv(t, audit)
				if string(dead.Payload()) != "poison" || dead.ProducerName() != "undertaker" {
					t.Fatalf("dead letter %q from producer %q", dead.Payload(), dead.ProducerName())
				}
			})
		})
	}
}

// TestRetryEnableRefusals: RetryEnable with a zero queue is refused as the
// official client refuses it, and ReconsumeLater without RetryEnable does
// nothing (the message stays unacknowledged).
func TestRetryEnableRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		_, err := v.c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "s", RetryEnable: true, EnableZeroQueueConsumer: true})
		if !errors.Is(err, ErrInvalidOptions) {
			t.Fatalf("RetryEnable with a zero queue: %v", err)
		}
		p := testProducer(t, v.c, ProducerOptions{Topic: topic})
		id, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("x")})
		if err != nil {
			t.Fatal(err)
		}
		c := v.subscribe(ConsumerOptions{Topic: topic, Type: Shared})
		c.ReconsumeLater(csRecv(t, c), time.Millisecond)
		synctest.Wait()
		cur, _, err := v.b.Cursor(topic, "s")
		if err != nil || allAcked(id)(cur) {
			t.Fatalf("cursor %+v, %v: want the message unacknowledged", cur, err)
		}
		if _, err := v.c.Subscribe(ConsumerOptions{Topic: topic + "-x", SubscriptionName: "s", DLQ: &DLQPolicy{}}); !errors.Is(err, ErrInvalidOptions) {
			t.Fatalf("DLQ without MaxDeliveries: %v", err)
		}
	})
}

// TestReconsumeTimesBadInput: a RECONSUMETIMES property that is not a
// count starts over (as the official client reads it), one beyond range
// sends the message to the dead-letter topic instead of retrying it for
// ever.
func TestReconsumeTimesBadInput(t *testing.T) {
	for in, want := range map[string]int64{"2": 2, "abc": 0, "-7": 0, "": 0,
		"99999999999999999999": math.MaxUint32 - 1, "-99999999999999999999": 0, "4294967295": math.MaxUint32 - 1} {
		if got := reconsumeTimes(in); got != want {
			t.Errorf("reconsumeTimes(%q) = %d, want %d", in, got, want)
		}
	}
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p := testProducer(t, v.c, ProducerOptions{Topic: topic})
		if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("x"),
			Properties: map[string]string{SysPropertyReconsumeTimes: "99999999999999999999"}}); err != nil {
			t.Fatal(err)
		}
		c := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "sub", Type: Shared, RetryEnable: true})
		c.ReconsumeLater(csRecv(t, c), time.Second)
		dead := csRecv(t, v.subscribe(ConsumerOptions{Topic: topic + "-sub-DLQ", SubscriptionName: "d"}))
		if got := dead.Properties()[SysPropertyReconsumeTimes]; got != strconv.FormatInt(math.MaxUint32, 10) {
			t.Fatalf("dead letter RECONSUMETIMES %q", got)
		}
	})
}
