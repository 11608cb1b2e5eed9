package main

import (
	"context"
	"time"

	"github.com/pulsargo/sdk/pulsar"
)

type oursPair struct {
	p pulsar.Producer
	c pulsar.Consumer
}

func (t *ours) openPartitioned(ctx context.Context, topic string) (partitionedPair, error) {
	c, err := t.c.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "bench", Type: pulsar.Shared,
		SubscriptionInitialPosition: pulsar.SubscriptionPositionEarliest})
	if err != nil {
		return nil, err
	}
	p, err := t.c.CreateProducer(pulsar.ProducerOptions{Topic: topic, BatchingMaxPublishDelay: 10 * time.Millisecond, MaxPendingMessages: 10_000})
	if err != nil {
		c.Close()
		return nil, err
	}
	return &oursPair{p: p, c: c}, nil
}

func (o *oursPair) send(ctx context.Context, n int, payload []byte) error {
	return sendAll(n, func(_ int, done func(error)) {
		o.p.SendAsync(ctx, &pulsar.ProducerMessage{Payload: payload}, func(_ pulsar.MessageID, _ *pulsar.ProducerMessage, err error) { done(err) })
	})
}

func (o *oursPair) receive(ctx context.Context, n int) error {
	for range n {
		m, err := o.c.Receive(ctx)
		if err != nil {
			return err
		}
		o.c.AckID(m.ID())
	}
	return nil
}

func (o *oursPair) close() {
	o.p.Close()
	o.c.Close()
}

func (t *ours) seekSecond(ctx context.Context, topic string, payload []byte) (time.Duration, error) {
	p, err := t.chunkedProducer(topic)
	if err != nil {
		return 0, err
	}
	defer p.Close()
	c, err := t.c.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "bench",
		SubscriptionInitialPosition: pulsar.SubscriptionPositionEarliest})
	if err != nil {
		return 0, err
	}
	defer c.Close()
	return seekToSecond(func() (pulsar.MessageID, error) {
		return p.Send(ctx, &pulsar.ProducerMessage{Payload: payload})
	}, func() (int, error) {
		m, err := c.Receive(ctx)
		if err != nil {
			return 0, err
		}
		_ = c.Ack(m)
		return len(m.Payload()), nil
	}, c.Seek, len(payload))
}
