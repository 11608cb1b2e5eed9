package main

import (
	"context"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
)

type theirsPair struct {
	p official.Producer
	c official.Consumer
}

func (t *theirs) openPartitioned(ctx context.Context, topic string) (partitionedPair, error) {
	c, err := t.c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "bench", Type: official.Shared,
		SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
	if err != nil {
		return nil, err
	}
	p, err := t.c.CreateProducer(official.ProducerOptions{Topic: topic, BatchingMaxPublishDelay: 10 * time.Millisecond, MaxPendingMessages: 10_000})
	if err != nil {
		c.Close()
		return nil, err
	}
	return &theirsPair{p: p, c: c}, nil
}

func (o *theirsPair) send(ctx context.Context, n int, payload []byte) error {
	return sendAll(n, func(_ int, done func(error)) {
		o.p.SendAsync(ctx, &official.ProducerMessage{Payload: payload}, func(_ official.MessageID, _ *official.ProducerMessage, err error) { done(err) })
	})
}

func (o *theirsPair) receive(ctx context.Context, n int) error {
	for range n {
		m, err := o.c.Receive(ctx)
		if err != nil {
			return err
		}
		o.c.AckID(m.ID())
	}
	return nil
}

func (o *theirsPair) close() {
	o.p.Close()
	o.c.Close()
}

func (t *theirs) seekSecond(ctx context.Context, topic string, payload []byte) (time.Duration, error) {
	p, err := t.chunkedProducer(topic)
	if err != nil {
		return 0, err
	}
	defer p.Close()
	c, err := t.c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "bench",
		SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
	if err != nil {
		return 0, err
	}
	defer c.Close()
	return seekToSecond(func() (official.MessageID, error) {
		return p.Send(ctx, &official.ProducerMessage{Payload: payload})
	}, func() (int, error) {
		m, err := c.Receive(ctx)
		if err != nil {
			return 0, err
		}
		_ = c.Ack(m)
		return len(m.Payload()), nil
	}, c.Seek, len(payload))
}
