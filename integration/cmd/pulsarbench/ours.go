package main

import (
	"context"
	"time"

	"github.com/pulsargo/sdk/pulsar"
)

// ours is this SDK.
type ours struct{ c pulsar.Client }

func newOurs(url string) (side, error) {
	c, err := pulsar.NewClient(pulsar.ClientOptions{URL: url})
	if err != nil {
		return nil, err
	}
	return &ours{c: c}, nil
}

func (t *ours) name() string { return "ours" }
func (t *ours) close()       { t.c.Close() }

func (t *ours) produce(ctx context.Context, topic string, n int, payload []byte) error {
	p, err := t.c.CreateProducer(pulsar.ProducerOptions{Topic: topic, BatchingMaxPublishDelay: 10 * time.Millisecond, MaxPendingMessages: 10_000})
	if err != nil {
		return err
	}
	defer p.Close()
	return sendAll(n, func(_ int, done func(error)) {
		p.SendAsync(ctx, &pulsar.ProducerMessage{Payload: payload}, func(_ pulsar.MessageID, _ *pulsar.ProducerMessage, err error) { done(err) })
	})
}

func (t *ours) chunkedProducer(topic string) (pulsar.Producer, error) {
	return t.c.CreateProducer(pulsar.ProducerOptions{Topic: topic, EnableChunking: true, DisableBatching: true,
		ChunkMaxMessageSize: 1 << 20})
}

func (t *ours) send(ctx context.Context, topic string, payload []byte) error {
	p, err := t.chunkedProducer(topic)
	if err != nil {
		return err
	}
	defer p.Close()
	_, err = p.Send(ctx, &pulsar.ProducerMessage{Payload: payload})
	return err
}

func (t *ours) receive(ctx context.Context, topic string, size int) error {
	c, err := t.c.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "bench",
		SubscriptionInitialPosition: pulsar.SubscriptionPositionEarliest})
	if err != nil {
		return err
	}
	defer c.Close()
	m, err := c.Receive(ctx)
	if err != nil {
		return err
	}
	if err := checkPayload(m.Payload(), size); err != nil {
		return err
	}
	return c.Ack(m)
}

func (t *ours) seekRead(ctx context.Context, topic string, backlog int, payload []byte) (first, med time.Duration, err error) {
	if err := t.produce(ctx, topic, backlog, payload[:100]); err != nil {
		return 0, 0, err
	}
	if err := t.send(ctx, topic, payload); err != nil {
		return 0, 0, err
	}
	// As theirs: Seek to a chunk id delivers that message again, with
	// StartMessageIDInclusive at its default.
	c, err := t.c.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "bench",
		SubscriptionInitialPosition: pulsar.SubscriptionPositionEarliest})
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	return seekAndReread(backlog, len(payload), func() (int, pulsar.MessageID, error) {
		m, err := c.Receive(ctx)
		if err != nil {
			return 0, nil, err
		}
		_ = c.Ack(m)
		return len(m.Payload()), m.ID(), nil
	}, c.Seek)
}
