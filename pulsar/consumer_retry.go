package pulsar

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pulsargo/sdk/internal/topicname"
)

// Retry and dead-letter topics, as the official Go client names them.
const (
	// DlqTopicSuffix ends the default dead-letter topic,
	// "<topic>-<subscription>-DLQ".
	DlqTopicSuffix = "-DLQ"
	// RetryTopicSuffix ends the default retry letter topic,
	// "<topic>-<subscription>-RETRY".
	RetryTopicSuffix = "-RETRY"
	// MaxReconsumeTimes is DLQPolicy.MaxDeliveries when RetryEnable is set
	// without a DLQPolicy.
	MaxReconsumeTimes = 16
)

// Properties of messages on the retry letter and dead-letter topics, as
// the official Go client sets them (their values too, including the
// official SysPropertyOriginMessageID's).
const (
	// SysPropertyDelayTime is the ReconsumeLater delay in milliseconds.
	SysPropertyDelayTime = "DELAY_TIME"
	// SysPropertyRealTopic is the topic (partition) the message came from.
	SysPropertyRealTopic = "REAL_TOPIC"
	// SysPropertyRetryTopic is the retry letter topic's property name (the
	// official client defines it and sets it nowhere).
	SysPropertyRetryTopic = "RETRY_TOPIC"
	// SysPropertyReconsumeTimes counts the ReconsumeLater calls so far.
	SysPropertyReconsumeTimes = "RECONSUMETIMES"
	// SysPropertyOriginMessageID holds the original message id; its value
	// is the official client's ("ORIGIN_MESSAGE_IDY_TIME"), kept so that
	// both clients read each other's letters.
	SysPropertyOriginMessageID = "ORIGIN_MESSAGE_IDY_TIME"
	// PropertyOriginMessageID holds the original message id too (its
	// String form).
	PropertyOriginMessageID = "ORIGIN_MESSAGE_ID"
)

// RetryMessage is a message on its way to the retry letter topic, as the
// official client's type of that name (opaque).
type RetryMessage struct {
	producerMsg ProducerMessage
}

// retryDefaults applies RetryEnable to the options as the official client
// does: the DLQ policy's defaults ("<topic>-<subscription>-RETRY" and
// "-DLQ" of the first topic without partition suffix, or the older
// "<domain>://<namespace>/<subscription>-RETRY" and "-DLQ" when those exist
// as partitioned topics; MaxReconsumeTimes) and the retry letter topic
// added to the topics. A pattern consumer has no first topic: as the
// official client, its defaults are those of a topic with an empty name in
// public/default ("persistent://public/default/-<subscription>-RETRY"),
// and it consumes the retry letter topic beside the topics of its pattern.
func (c *client) retryDefaults(ctx context.Context, opts *ConsumerOptions) error {
	first := opts.Topic
	if first == "" && len(opts.Topics) > 0 {
		first = opts.Topics[0]
	}
	base, domain, namespace := "persistent://public/default/", "persistent", "public/default"
	if first != "" {
		n, err := topicname.Parse(first)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidOptions, err)
		}
		base, domain, namespace = n.Base, n.Domain, n.Namespace
	}
	retry := base + "-" + opts.SubscriptionName + RetryTopicSuffix
	dlq := base + "-" + opts.SubscriptionName + DlqTopicSuffix
	old := domain + "://" + namespace + "/" + opts.SubscriptionName
	if c.isPartitioned(ctx, old+RetryTopicSuffix) {
		retry = old + RetryTopicSuffix
	}
	if c.isPartitioned(ctx, old+DlqTopicSuffix) {
		dlq = old + DlqTopicSuffix
	}
	policy := DLQPolicy{MaxDeliveries: MaxReconsumeTimes}
	if opts.DLQ != nil {
		policy = *opts.DLQ
	}
	if policy.DeadLetterTopic == "" {
		policy.DeadLetterTopic = dlq
	}
	if policy.RetryLetterTopic == "" {
		policy.RetryLetterTopic = retry
	}
	opts.DLQ = &policy
	opts.Topics = append(append([]string(nil), opts.Topics...), policy.RetryLetterTopic)
	return nil
}

// isPartitioned reports whether topic exists as a partitioned topic.
func (c *client) isPartitioned(ctx context.Context, topic string) bool {
	names, err := c.partitions(ctx, topic)
	return err == nil && (len(names) > 1 || names[0] != topicFull(topic))
}

// ReconsumeLater sends msg to the retry letter topic, delivered again after
// delay, and acknowledges it.
func (cs *consumerImpl) ReconsumeLater(msg Message, delay time.Duration) {
	cs.ReconsumeLaterWithCustomProperties(msg, nil, delay)
}

// ReconsumeLaterWithCustomProperties sends msg with its properties and
// customProperties, and the retry properties the official client sets, to
// the retry letter topic (delivered after delay, through deliver_at_time)
// or, once it was reconsumed DLQPolicy.MaxDeliveries times, to the
// dead-letter topic; msg is acknowledged once its copy is stored.
func (cs *consumerImpl) ReconsumeLaterWithCustomProperties(msg Message, customProperties map[string]string, delay time.Duration) {
	if !cs.opts.RetryEnable || cs.letters == nil {
		cs.c.log.Warn("ReconsumeLater needs ConsumerOptions.RetryEnable; ignored", "subscription", cs.opts.SubscriptionName)
		return
	}
	e, id, err := cs.engineOf(msg)
	if err != nil {
		cs.c.log.Warn("ReconsumeLater of a message this consumer cannot place", "err", err)
		return
	}
	m, ok := msg.(*message)
	if !ok {
		cs.c.log.Warn("ReconsumeLater of a message this consumer did not deliver", "id", id)
		return
	}
	delay = max(delay, 0)
	props := maps.Clone(msg.Properties())
	if props == nil {
		props = map[string]string{}
	}
	maps.Copy(props, customProperties)
	times := int64(1)
	if s, ok := props[SysPropertyReconsumeTimes]; ok {
		times = reconsumeTimes(s) + 1
	} else {
		props[SysPropertyRealTopic] = msg.Topic()
		props[SysPropertyOriginMessageID] = id.String()
		props[PropertyOriginMessageID] = id.String()
	}
	props[SysPropertyReconsumeTimes] = strconv.FormatInt(times, 10)
	props[SysPropertyDelayTime] = strconv.FormatInt(delay.Milliseconds(), 10)
	l := letter{m: m.m, e: e, props: props}
	if n, err := topicname.Parse(msg.Topic()); err == nil {
		l.base = n.Base
	}
	if times <= int64(cs.opts.DLQ.MaxDeliveries) {
		l.retry = &RetryMessage{producerMsg: ProducerMessage{
			Payload: msg.Payload(), Key: msg.Key(), OrderingKey: msg.OrderingKey(), Properties: props,
			DeliverAfter: delay, EventTime: msg.EventTime(),
		}}
	}
	if !cs.letters.q.Push(l) {
		cs.c.log.Warn("ReconsumeLater on a closed consumer", "id", id)
	}
}

// reconsumeTimes reads a RECONSUMETIMES property: garbage counts as 0, as
// in the official client, and a count out of range as the most there can
// be (so that the message goes to the dead-letter topic rather than round
// the retry topic for ever).
func reconsumeTimes(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(s, "-"), err == nil && n >= math.MaxUint32-1:
		return math.MaxUint32 - 1
	case err != nil || n < 0:
		return 0
	}
	return n
}
