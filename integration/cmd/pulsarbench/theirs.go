package main

import (
	"context"
	"io"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsar/log"
	"github.com/sirupsen/logrus"
)

// theirs is the official Go client.
type theirs struct{ c official.Client }

func newTheirs(url string) (side, error) {
	l := logrus.New()
	l.SetOutput(io.Discard)
	c, err := official.NewClient(official.ClientOptions{URL: url, Logger: log.NewLoggerWithLogrus(l)})
	if err != nil {
		return nil, err
	}
	return &theirs{c: c}, nil
}

func (t *theirs) name() string { return "theirs" }
func (t *theirs) close()       { t.c.Close() }

func (t *theirs) produce(ctx context.Context, topic string, n int, payload []byte) error {
	p, err := t.c.CreateProducer(official.ProducerOptions{Topic: topic, BatchingMaxPublishDelay: 10 * time.Millisecond, MaxPendingMessages: 10_000})
	if err != nil {
		return err
	}
	defer p.Close()
	return sendAll(n, func(_ int, done func(error)) {
		p.SendAsync(ctx, &official.ProducerMessage{Payload: payload}, func(_ official.MessageID, _ *official.ProducerMessage, err error) { done(err) })
	})
}

func (t *theirs) chunkedProducer(topic string) (official.Producer, error) {
	return t.c.CreateProducer(official.ProducerOptions{Topic: topic, EnableChunking: true, DisableBatching: true,
		ChunkMaxMessageSize: 1 << 20})
}

func (t *theirs) send(ctx context.Context, topic string, payload []byte) error {
	p, err := t.chunkedProducer(topic)
	if err != nil {
		return err
	}
	defer p.Close()
	_, err = p.Send(ctx, &official.ProducerMessage{Payload: payload})
	return err
}

func (t *theirs) receive(ctx context.Context, topic string, size int) error {
	c, err := t.c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "bench",
		SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
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

func (t *theirs) seekRead(ctx context.Context, topic string, backlog int, payload []byte) (first, med time.Duration, err error) {
	if err := t.produce(ctx, topic, backlog, payload[:100]); err != nil {
		return 0, 0, err
	}
	if err := t.send(ctx, topic, payload); err != nil {
		return 0, 0, err
	}
	c, err := t.c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "bench",
		SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	return seekAndReread(backlog, len(payload), func() (int, official.MessageID, error) {
		m, err := c.Receive(ctx)
		if err != nil {
			return 0, nil, err
		}
		_ = c.Ack(m)
		return len(m.Payload()), m.ID(), nil
	}, c.Seek)
}
