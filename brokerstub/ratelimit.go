package brokerstub

import (
	"time"
)

// RateLimits are the broker's publish, dispatch and subscribe rate limits
// (Pulsar's broker.conf keys named on each field). The namespace and topic
// policies of the admin API (publishRate, dispatchRate,
// subscriptionDispatchRate, subscribeRate) override the per-topic,
// per-subscription and per-consumer ones for their topics, resolved topic →
// namespace → broker as Pulsar does. A rate of 0 or less is no limit. Every
// limit is a token bucket that holds one period's worth and starts full
// (Pulsar's AsyncTokenBucket); time is Options.Clock's.
type RateLimits struct {
	// BrokerPublishMsgRate and BrokerPublishByteRate throttle publishing on
	// the whole broker, all topics together, to this many messages or
	// bytes a second (brokerPublisherThrottlingMaxMessageRate,
	// brokerPublisherThrottlingMaxByteRate). As Pulsar does, nothing is
	// refused: a connection whose SEND goes over the rate reads nothing
	// more until the rate allows it again. Default 0: none.
	BrokerPublishMsgRate, BrokerPublishByteRate int64
	// TopicPublishMsgRate and TopicPublishByteRate throttle publishing on
	// each topic in the same way (maxPublishRatePerTopicInMessages,
	// maxPublishRatePerTopicInBytes; policies publishRate, namespace
	// publishMaxMessageRate). Default 0: none.
	TopicPublishMsgRate, TopicPublishByteRate int64
	// BrokerDispatchMsgRate and BrokerDispatchByteRate hold dispatch to
	// consumers on the whole broker, all subscriptions together, to this
	// many messages or bytes a second (dispatchThrottlingRateInMsg,
	// dispatchThrottlingRateInByte). Default 0: none.
	BrokerDispatchMsgRate, BrokerDispatchByteRate int64
	// TopicDispatchMsgRate and TopicDispatchByteRate hold dispatch on each
	// topic, its subscriptions together
	// (dispatchThrottlingRatePerTopicInMsg, ...InByte; policies
	// dispatchRate, namespace topicDispatchRate). Default 0: none.
	TopicDispatchMsgRate, TopicDispatchByteRate int64
	// SubscriptionDispatchMsgRate and SubscriptionDispatchByteRate hold
	// dispatch on each subscription
	// (dispatchThrottlingRatePerSubscriptionInMsg, ...InByte; policy
	// subscriptionDispatchRate). Default 0: none.
	SubscriptionDispatchMsgRate, SubscriptionDispatchByteRate int64
	// DispatchRelativeToPublishRate adds the topic's average publish rate
	// (over the last minute) to the broker's per-topic and
	// per-subscription dispatch rates
	// (dispatchThrottlingRateRelativeToPublishRate; a policy says it with
	// its own relativeToPublishRate). Default false.
	DispatchRelativeToPublishRate bool
	// DispatchCountsEntries charges the dispatch message rates one per
	// entry, a batch as one, instead of one per message
	// (dispatchThrottlingOnBatchMessageEnabled). Default false.
	DispatchCountsEntries bool
	// DispatchSparesCaughtUp leaves out of the dispatch rates a
	// subscription that is not backlogged, fewer than 1,000 entries behind
	// (Pulsar's managedLedgerCursorBackloggedThreshold)
	// (dispatchThrottlingOnNonBacklogConsumerEnabled=false). Default
	// false: every subscription is throttled, as Pulsar's default true.
	DispatchSparesCaughtUp bool
	// SubscribeRatePerConsumer refuses a subscribe of a consumer (its
	// client host, name and id) beyond this many per
	// SubscribeRatePeriod with NotAllowedError "Subscribe limited by
	// subscribe rate limit per consumer." (subscribeThrottlingRatePerConsumer;
	// policy subscribeRate). Persistent topics only. Default 0: none.
	SubscribeRatePerConsumer int64
	// SubscribeRatePeriod is the period of SubscribeRatePerConsumer
	// (subscribeRatePeriodPerConsumerInSecond). Default 30 s.
	SubscribeRatePeriod time.Duration
}

func (r RateLimits) withDefaults() RateLimits {
	if r.SubscribeRatePeriod <= 0 {
		r.SubscribeRatePeriod = 30 * time.Second
	}
	return r
}

// rates reads the keys of RateLimits (ParseConfig).
func (p *configParser) rates(o *Options) {
	r := &o.RateLimits
	const anyInt = -1 << 31
	r.BrokerPublishMsgRate = p.int("brokerPublisherThrottlingMaxMessageRate", 0, anyInt)
	r.BrokerPublishByteRate = p.int("brokerPublisherThrottlingMaxByteRate", 0, anyInt)
	r.TopicPublishMsgRate = p.int("maxPublishRatePerTopicInMessages", 0, anyInt)
	r.TopicPublishByteRate = p.int("maxPublishRatePerTopicInBytes", 0, anyInt)
	r.BrokerDispatchMsgRate = p.int("dispatchThrottlingRateInMsg", 0, anyInt)
	r.BrokerDispatchByteRate = p.int("dispatchThrottlingRateInByte", 0, anyInt)
	r.TopicDispatchMsgRate = p.int("dispatchThrottlingRatePerTopicInMsg", 0, anyInt)
	r.TopicDispatchByteRate = p.int("dispatchThrottlingRatePerTopicInByte", 0, anyInt)
	r.SubscriptionDispatchMsgRate = p.int("dispatchThrottlingRatePerSubscriptionInMsg", 0, anyInt)
	r.SubscriptionDispatchByteRate = p.int("dispatchThrottlingRatePerSubscriptionInByte", 0, anyInt)
	r.DispatchRelativeToPublishRate = p.bool("dispatchThrottlingRateRelativeToPublishRate", false)
	r.DispatchCountsEntries = p.bool("dispatchThrottlingOnBatchMessageEnabled", false)
	r.DispatchSparesCaughtUp = !p.bool("dispatchThrottlingOnNonBacklogConsumerEnabled", true)
	r.SubscribeRatePerConsumer = p.int("subscribeThrottlingRatePerConsumer", 0, anyInt)
	r.SubscribeRatePeriod = time.Duration(p.int("subscribeRatePeriodPerConsumerInSecond", 30, 1)) * time.Second
}
