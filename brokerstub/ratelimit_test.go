package brokerstub

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

var rateT0 = time.Unix(1_750_000_000, 0)

// rateTopic stores n messages on topic and subscribes consumer id (Shared,
// subscription sub, from the earliest) with plenty of permits.
func rateTopic(t *testing.T, c *ksClient, topic string, n int, subs ...string) {
	t.Helper()
	p := c.producer(topic, 99)
	for i := range n {
		p.Send("k", fmt.Sprint(i))
	}
	for i, sub := range subs {
		c.subscribeTyped(topic, sub, proto.CommandSubscribe_Shared, uint64(i+1), 1000)
	}
}

// A subscription's dispatch rate holds it to that many messages a period,
// then resumes by the timer alone: the bucket starts full, refills
// continuously, and a throttled subscription arms one timer, not a spin.
func TestDispatchRateHoldsAndResumes(t *testing.T) {
	clk := &countingClock{FakeClock: NewFakeClock(rateT0)}
	b := RunT(t, Options{Clock: clk, RateLimits: RateLimits{SubscriptionDispatchMsgRate: 5}})
	c := dialKS(t, b)
	const topic = "persistent://public/default/rate-sub"
	rateTopic(t, c, topic, 30, "s")
	require.Len(t, c.sync(1), 5, "a full bucket: one period's worth")

	armed := clk.armed.Load()
	for range 5 { // FLOWs make the subscription try again: no spin, no new timer
		c.flow(1, 1)
		assert.Empty(t, c.sync(1), "nothing before the rate allows it")
	}
	assert.Equal(t, armed, clk.armed.Load(), "a held subscription re-armed its timer")

	clk.Advance(time.Second)
	assert.Len(t, c.sync(1), 5, "resumed by the timer: one more period's worth")
	clk.Advance(500 * time.Millisecond)
	assert.Len(t, c.sync(1), 2, "half a period: 2.5 tokens, 2 whole messages")
	clk.Advance(100 * time.Millisecond) // 0.5 + 0.5 token
	assert.Len(t, c.sync(1), 1)

	// Over 10 s more: 50 at most, whatever the steps.
	got := 0
	for range 40 {
		clk.Advance(250 * time.Millisecond)
		got += len(c.sync(1))
	}
	assert.Equal(t, 30-13, got, "the rest, at 5 a second (17 in 3.4 s)")
}

// A byte rate counts the entries' metadata and payload; an entry that
// overdraws it is sent, and the next waits longer.
func TestDispatchByteRate(t *testing.T) {
	clk := NewFakeClock(rateT0)
	b := RunT(t, Options{Clock: clk, RateLimits: RateLimits{TopicDispatchByteRate: 1}})
	c := dialKS(t, b)
	const topic = "persistent://public/default/rate-bytes"
	rateTopic(t, c, topic, 3, "s")
	require.Len(t, c.sync(1), 1, "the first entry overdraws the 1-byte bucket")
	clk.Advance(time.Second)
	assert.Empty(t, c.sync(1), "its debt is more than a second's worth")
}

// Each subscription has its own subscription rate; the topic rate holds
// them all together; the broker rate every topic.
func TestDispatchRateLevels(t *testing.T) {
	t.Run("subscription", func(t *testing.T) {
		b := RunT(t, Options{Clock: NewFakeClock(rateT0), RateLimits: RateLimits{SubscriptionDispatchMsgRate: 3}})
		c := dialKS(t, b)
		rateTopic(t, c, "persistent://public/default/rate-levels-sub", 10, "a", "b")
		assert.Len(t, c.sync(1), 3)
		assert.Len(t, c.sync(2), 3)
	})
	t.Run("topic", func(t *testing.T) {
		b := RunT(t, Options{Clock: NewFakeClock(rateT0), RateLimits: RateLimits{TopicDispatchMsgRate: 4}})
		c := dialKS(t, b)
		rateTopic(t, c, "persistent://public/default/rate-levels-topic", 10, "a", "b")
		assert.Equal(t, 4, len(c.sync(1))+len(c.sync(2)))
	})
	t.Run("broker", func(t *testing.T) {
		b := RunT(t, Options{Clock: NewFakeClock(rateT0), RateLimits: RateLimits{BrokerDispatchMsgRate: 4}})
		c := dialKS(t, b)
		rateTopic(t, c, "persistent://public/default/rate-levels-b1", 10, "a")
		assert.Len(t, c.sync(1), 4)
		c2 := dialKS(t, b)
		rateTopic(t, c2, "persistent://public/default/rate-levels-b2", 10, "a")
		assert.Empty(t, c2.sync(1), "the broker's bucket is shared by its topics")
	})
	t.Run("entries", func(t *testing.T) {
		// dispatchThrottlingOnBatchMessageEnabled: a batch of 10 counts 1.
		b := RunT(t, Options{Clock: NewFakeClock(rateT0), RateLimits: RateLimits{TopicDispatchMsgRate: 2, DispatchCountsEntries: true}})
		c := dialKS(t, b)
		const topic = "persistent://public/default/rate-entries"
		p := c.producer(topic, 99)
		for i := range 3 {
			p.sendMeta(&proto.MessageMetadata{NumMessagesInBatch: gproto.Int32(10)}, fmt.Sprint(i))
		}
		c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 1000)
		assert.Len(t, c.sync(1), 2, "two entries of ten messages each")
	})
	t.Run("caught-up spared", func(t *testing.T) {
		// dispatchThrottlingOnNonBacklogConsumerEnabled=false: a
		// subscription less than 1,000 entries behind is not charged.
		b := RunT(t, Options{Clock: NewFakeClock(rateT0), RateLimits: RateLimits{TopicDispatchMsgRate: 2, DispatchSparesCaughtUp: true}})
		c := dialKS(t, b)
		rateTopic(t, c, "persistent://public/default/rate-spared", 10, "s")
		assert.Len(t, c.sync(1), 10)
	})
}

// The rate in effect is the topic policy's when set (even to no limit),
// else the namespace policy's when it limits something, else the broker's,
// as Pulsar's DispatchRateLimiter resolves it; a change applies at once.
func TestDispatchRatePolicyOrder(t *testing.T) {
	clk := NewFakeClock(rateT0)
	b := RunT(t, Options{Clock: clk, RateLimits: RateLimits{TopicDispatchMsgRate: 10}})
	c := dialKS(t, b)
	const topic = "persistent://public/default/rate-order"
	rateTopic(t, c, topic, 40, "s")
	require.Len(t, c.sync(1), 10, "the broker's rate")

	postPolicy(t, b, "/admin/v2/namespaces/public/default/dispatchRate",
		`{"dispatchThrottlingRateInMsg":0,"dispatchThrottlingRateInByte":0,"ratePeriodInSecond":1}`)
	assert.Empty(t, c.sync(1), "a namespace rate of no limit leaves the broker's")
	postPolicy(t, b, "/admin/v2/namespaces/public/default/dispatchRate",
		`{"dispatchThrottlingRateInMsg":3,"dispatchThrottlingRateInByte":-1,"ratePeriodInSecond":2}`)
	assert.Len(t, c.sync(1), 3, "the namespace's rate, a fresh bucket")
	clk.Advance(time.Second)
	assert.Len(t, c.sync(1), 1, "3 per 2 s: 1.5 in a second")

	postPolicy(t, b, "/admin/v2/persistent/public/default/rate-order/dispatchRate",
		`{"dispatchThrottlingRateInMsg":2,"dispatchThrottlingRateInByte":-1,"ratePeriodInSecond":1}`)
	assert.Len(t, c.sync(1), 2, "the topic's rate over the namespace's")
	postPolicy(t, b, "/admin/v2/persistent/public/default/rate-order/dispatchRate",
		`{"dispatchThrottlingRateInMsg":-1,"dispatchThrottlingRateInByte":-1}`)
	assert.Len(t, c.sync(1), 40-16, "a topic rate of no limit: everything else")

	code, body := adminDo(t, b, http.MethodGet, "/admin/v2/namespaces/public/default/dispatchRate", "")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `"dispatchThrottlingRateInMsg":3`)

	for _, path := range []string{"namespaces/public/default/dispatchRate", "persistent/public/default/rate-order/publishRate"} {
		code, body = adminDo(t, b, http.MethodPost, "/admin/v2/"+path, `{"dispatchThrottlingRateInMsg":"many","publishThrottlingRateInMsg":[1]}`)
		assert.Equal(t, http.StatusBadRequest, code, "%s: %s", path, body)
		assert.Contains(t, body, "Invalid rate policy")
	}
}

// The subscriptionDispatchRate policies, of the namespace and the topic,
// override the broker's per-subscription rate.
func TestSubscriptionDispatchRatePolicy(t *testing.T) {
	b := RunT(t, Options{Clock: NewFakeClock(rateT0)})
	c := dialKS(t, b)
	postPolicy(t, b, "/admin/v2/namespaces/public/default/subscriptionDispatchRate",
		`{"dispatchThrottlingRateInMsg":4,"dispatchThrottlingRateInByte":-1,"ratePeriodInSecond":1}`)
	rateTopic(t, c, "persistent://public/default/rate-subpol", 20, "a", "b")
	assert.Len(t, c.sync(1), 4)
	assert.Len(t, c.sync(2), 4)
	postPolicy(t, b, "/admin/v2/persistent/public/default/rate-subpol/subscriptionDispatchRate",
		`{"dispatchThrottlingRateInMsg":6,"dispatchThrottlingRateInByte":-1,"ratePeriodInSecond":1}`)
	assert.Len(t, c.sync(1), 6, "the topic's, with fresh buckets")
	assert.Len(t, c.sync(2), 6)
}

// A rate relative to the publish rate adds the topic's average publish
// rate over the last minute to itself.
func TestDispatchRateRelativeToPublishRate(t *testing.T) {
	clk := NewFakeClock(rateT0)
	b := RunT(t, Options{Clock: clk, RateLimits: RateLimits{TopicDispatchMsgRate: 1, DispatchRelativeToPublishRate: true}})
	c := dialKS(t, b)
	const topic = "persistent://public/default/rate-relative"
	rateTopic(t, c, topic, 120, "s") // 120 in the first minute: 2 a second
	require.Len(t, c.sync(1), 1, "no publish rate measured yet: the rate alone")
	clk.Advance(60 * time.Second)
	c.flow(1, 1) // the next dispatch measures the minute gone
	c.sync(1)
	got := 0
	for range 100 {
		clk.Advance(100 * time.Millisecond)
		got += len(c.sync(1))
	}
	assert.InDelta(t, 30, got, 1, "1 + 2 a second, for 10 s")
}

// A producer over its topic's publish rate is not refused: its
// connection stops reading until the rate allows the next SEND, so that
// the receipts come at the rate. In a synctest bubble, where the broker's
// real clock is the bubble's.
func TestPublishRateThrottlesTheConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, err := Start(Options{NoListener: true, KeepAliveInterval: time.Hour})
		require.NoError(t, err)
		defer b.Close()
		postPolicy := func(path, body string) {
			req := httptest.NewRequest(http.MethodPost, "http://stub"+path, strings.NewReader(body))
			rec := httptest.NewRecorder()
			b.AdminHandler().ServeHTTP(rec, req)
			require.Equal(t, http.StatusNoContent, rec.Code, rec.Body.String())
		}
		postPolicy("/admin/v2/namespaces/public/default/publishRate", `{"publishThrottlingRateInMsg":2,"publishThrottlingRateInByte":-1}`)
		nc, err := b.Dial(context.Background(), "", "")
		require.NoError(t, err)
		defer nc.Close()
		c := dialRawOn(t, nc)
		c.connect()
		require.Nil(t, c.attach("persistent://public/default/rate-publish", 1))

		const n = 8
		go func() {
			for i := range n {
				seq := uint64(i)
				c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
					ProducerId: gproto.Uint64(1), SequenceId: &seq, NumMessages: gproto.Int32(1)}},
					&proto.MessageMetadata{ProducerName: gproto.String("p"), SequenceId: &seq, PublishTime: gproto.Uint64(1)},
					[]byte("x"))
			}
		}()
		receipts := make(chan uint64, n)
		_ = nc.SetReadDeadline(time.Time{}) // the bubble's clock runs ahead: no deadline
		go func() {
			for {
				f, err := c.r.ReadFrame()
				if err != nil {
					return
				}
				if f.Cmd.GetType() == proto.BaseCommand_SEND_RECEIPT {
					receipts <- f.Cmd.GetSendReceipt().GetSequenceId()
				}
			}
		}()
		synctest.Wait()
		assert.Len(t, receipts, 2, "a full bucket of 2, then the reads pause")
		for _, want := range []int{3, 4, 5, 6, 7, 8} {
			time.Sleep(500 * time.Millisecond) // bubble time: a token each 500ms
			synctest.Wait()
			assert.Len(t, receipts, want)
		}
		nc.Close()
	})
}

// A consumer (host, name, id) may subscribe subscribeRate times a period;
// one more is refused with NotAllowedError and Pulsar's text, until the
// bucket refills. A topic policy overrides the broker's rate.
func TestSubscribeRatePerConsumer(t *testing.T) {
	clk := NewFakeClock(rateT0)
	b := RunT(t, Options{Clock: clk, RateLimits: RateLimits{SubscribeRatePerConsumer: 2, SubscribeRatePeriod: 30 * time.Second}})
	c := dialRaw(t, b)
	c.connect()
	const topic = "persistent://public/default/rate-subscribe"
	closeIt := func(id uint64) {
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_CLOSE_CONSUMER.Enum(), CloseConsumer: &proto.CommandCloseConsumer{
			ConsumerId: gproto.Uint64(id), RequestId: gproto.Uint64(77)}})
		c.expect(proto.BaseCommand_SUCCESS)
	}
	for range 2 {
		require.Nil(t, c.sub(topic, "s", proto.CommandSubscribe_Shared, 1, true))
		closeIt(1)
	}
	refused(t, c.sub(topic, "s", proto.CommandSubscribe_Shared, 1, true), proto.ServerError_NotAllowedError,
		"Subscribe limited by subscribe rate limit per consumer.")
	require.Nil(t, c.sub(topic, "s", proto.CommandSubscribe_Shared, 2, true), "another consumer id is another consumer")
	closeIt(2)
	clk.Advance(15 * time.Second)
	require.Nil(t, c.sub(topic, "s", proto.CommandSubscribe_Shared, 1, true), "one token back after half the period")
	closeIt(1)

	postPolicy(t, b, "/admin/v2/persistent/public/default/rate-subscribe/subscribeRate",
		`{"subscribeThrottlingRatePerConsumer":0,"ratePeriodInSecond":30}`)
	for range 3 {
		require.Nil(t, c.sub(topic, "s", proto.CommandSubscribe_Shared, 1, true), "topic policy 0: no limit")
		closeIt(1)
	}
}

// Every subscription type is held to the rate: the single-active
// dispatchers and Key_Shared's (whose consumers' permits count 0 while the
// subscription waits).
func TestDispatchRateEveryType(t *testing.T) {
	for _, typ := range []proto.CommandSubscribe_SubType{proto.CommandSubscribe_Exclusive, proto.CommandSubscribe_Failover,
		proto.CommandSubscribe_Shared, proto.CommandSubscribe_Key_Shared} {
		t.Run(typ.String(), func(t *testing.T) {
			clk := NewFakeClock(rateT0)
			b := RunT(t, Options{Clock: clk, RateLimits: RateLimits{SubscriptionDispatchMsgRate: 3},
				ActiveConsumerFailoverDelay: -1}) // the first Failover consumer's turn comes at once
			c := dialKS(t, b)
			topic := "persistent://public/default/rate-type-" + typ.String()
			p := c.producer(topic, 99)
			for i := range 10 {
				p.Send(fmt.Sprint("k", i%4), fmt.Sprint(i))
			}
			c.subscribeTyped(topic, "s", typ, 1, 1000)
			assert.Len(t, c.sync(1), 3)
			clk.Advance(time.Second)
			assert.Len(t, c.sync(1), 3)
			clk.Advance(10 * time.Second)
			assert.Len(t, c.sync(1), 3, "a bucket holds one period's worth, however long the wait")
		})
	}
}

// A connection whose reads pause for the publish rate is not closed as
// silent, however long the pause (Pulsar's keep-alive spares a connection
// with autoread off): the SEND held behind a batch that overdrew the rate
// by 9 seconds gets its receipt after them, with a keep-alive of 1 s.
func TestPublishRatePauseOutlastsKeepAlive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, err := Start(Options{NoListener: true, KeepAliveInterval: time.Second,
			RateLimits: RateLimits{TopicPublishMsgRate: 1}})
		require.NoError(t, err)
		defer b.Close()
		nc, err := b.Dial(context.Background(), "", "")
		require.NoError(t, err)
		defer nc.Close()
		c := dialRawOn(t, nc)
		c.connect()
		require.Nil(t, c.attach("persistent://public/default/rate-keepalive", 1))
		send := func(seq uint64, num int32) {
			c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
				ProducerId: gproto.Uint64(1), SequenceId: &seq, NumMessages: &num}},
				&proto.MessageMetadata{ProducerName: gproto.String("p"), SequenceId: &seq, PublishTime: gproto.Uint64(1),
					NumMessagesInBatch: &num}, []byte("x"))
		}
		start := time.Now()
		go func() {
			send(0, 10) // 10 messages at 1 a second: 9 s of debt
			send(1, 1)
		}()
		var at []time.Duration
		_ = nc.SetReadDeadline(time.Time{}) // the bubble's clock runs ahead: no deadline
		for len(at) < 2 {
			f, err := c.r.ReadFrame()
			require.NoError(t, err, "the connection closed %v after the start, with %d receipts", time.Since(start), len(at))
			if f.Cmd.GetType() == proto.BaseCommand_SEND_RECEIPT {
				at = append(at, time.Since(start))
			}
		}
		assert.Less(t, at[0], time.Second)
		assert.GreaterOrEqual(t, at[1], 9*time.Second, "the second SEND waited for the rate")
	})
}
