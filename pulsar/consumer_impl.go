package pulsar

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/consumer"
)

// consumerImpl is the Consumer: one engine per partition of every topic,
// all delivering onto one channel.
type consumerImpl struct {
	c       *client
	opts    ConsumerOptions
	name    string
	ch      chan ConsumerMessage
	engines []*consumerEngine
	byTopic map[string]*consumerEngine // partition (or topic) full name -> engine
	single  bool                       // one topic: ids route by partition index
	dlq     *dlqRouter

	closeOnce sync.Once
	closed    chan struct{}
}

func (c *client) subscribe(opts ConsumerOptions) (Consumer, error) {
	topics := opts.Topics
	if opts.Topic != "" {
		topics = append([]string{opts.Topic}, topics...)
	}
	switch {
	case len(topics) == 0:
		return nil, api.InvalidOption(TopicNotFound, "topic is required")
	case opts.SubscriptionName == "":
		return nil, api.InvalidOption(SubscriptionNotFound, "subscription name is required for consumer")
	case opts.Type < Exclusive || opts.Type > KeyShared:
		return nil, fmt.Errorf("%w: unknown subscription type %d", ErrInvalidOptions, opts.Type)
	case opts.DLQ != nil && opts.DLQ.MaxDeliveries == 0:
		return nil, fmt.Errorf("%w: DLQ needs MaxDeliveries > 0", ErrInvalidOptions)
	}
	if c.isClosed() {
		return nil, ErrClientClosed
	}
	ctx, cancel := c.opContext()
	defer cancel()
	targets, err := c.consumerTargets(ctx, topics)
	if err != nil {
		return nil, err
	}
	cs := &consumerImpl{
		c: c, opts: opts, name: opts.Name, ch: opts.MessageChannel,
		byTopic: map[string]*consumerEngine{}, single: len(topics) == 1, closed: make(chan struct{}),
	}
	if cs.name == "" {
		cs.name = randomName("consumer")
	}
	if cs.ch == nil {
		cs.ch = make(chan ConsumerMessage)
	}
	if opts.DLQ != nil {
		cs.dlq = newDLQRouter(c, *opts.DLQ, opts.SubscriptionName)
	}
	wrap := func(m *consumer.Message) ConsumerMessage {
		return ConsumerMessage{Consumer: cs, Message: newMessage(m)}
	}
	errs := make([]error, len(targets))
	cs.engines = make([]*consumerEngine, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		o := c.consumerEngineOptions(t, cs.ch, wrap)
		applyConsumerOptions(&o, opts)
		o.Name = cs.name
		if !cs.single {
			o.RecentIDs = recentIDs
		}
		var e *consumerEngine
		if cs.dlq != nil {
			o.Divert = cs.dlq.divert(t, func() *consumerEngine { return e })
		}
		e = consumer.New(o)
		cs.engines[i] = e
		cs.byTopic[t.name] = e
		wg.Go(func() { errs[i] = e.Start(ctx) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		cs.closeEngines()
		return nil, consumerErr("subscribe to "+topics[0], err)
	}
	if err := c.register(cs); err != nil {
		cs.closeEngines()
		return nil, err
	}
	return cs, nil
}

func (cs *consumerImpl) Subscription() string { return cs.opts.SubscriptionName }

func (cs *consumerImpl) Name() string { return cs.name }

// Receive returns the next message of any partition.
func (cs *consumerImpl) Receive(ctx context.Context) (Message, error) {
	select {
	case m := <-cs.ch:
		return m.Message, nil
	case <-cs.closed:
		return nil, ErrConsumerClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Chan returns the channel messages arrive on (MessageChannel when set).
func (cs *consumerImpl) Chan() <-chan ConsumerMessage { return cs.ch }

// engineOf returns the engine of a received message and its id as this
// SDK's value.
func (cs *consumerImpl) engineOf(msg Message) (*consumerEngine, MessageID, error) {
	id, err := ownID(msg.ID())
	if err != nil {
		return nil, nil, err
	}
	if e := cs.byTopic[msg.Topic()]; e != nil {
		return e, id, nil
	}
	e, err := cs.engineFor(id)
	return e, id, err
}

// recentIDs is how many acknowledged messages per partition a consumer of
// several topics remembers, to route an id (Seek, AckID) to its topic.
const recentIDs = 1000

// engineFor returns the engine an id (of this SDK, see ownID) belongs to:
// by partition index on one topic; on several topics, the engine that
// delivered it (an id carries no topic, and ids of different topics may
// coincide: such an id is refused).
func (cs *consumerImpl) engineFor(id MessageID) (*consumerEngine, error) {
	if len(cs.engines) == 1 {
		return cs.engines[0], nil
	}
	if cs.single {
		for _, e := range cs.engines {
			if e.Partition() == id.PartitionIdx() {
				return e, nil
			}
		}
		return nil, fmt.Errorf("%w: id %v names partition %d, which this consumer does not have", ErrInvalidOptions, id, id.PartitionIdx())
	}
	var found []*consumerEngine
	for _, e := range cs.engines {
		if e.Knows(id) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, fmt.Errorf("%w: id %v was not delivered by this consumer and the topic cannot be told from it", ErrInvalidOptions, id)
	}
	return nil, fmt.Errorf("%w: id %v names a message on %d of this consumer's topics (%s, %s...)",
		ErrInvalidOptions, id, len(found), found[0].Topic(), found[1].Topic())
}

// Ack acknowledges a message (every chunk of a chunked message).
func (cs *consumerImpl) Ack(msg Message) error {
	e, id, err := cs.engineOf(msg)
	if err != nil {
		return err
	}
	return consumerErr("ack", e.Ack(context.Background(), id))
}

// AckID acknowledges by id; a chunk id (also deserialized, or returned by
// a producer) acknowledges every chunk of its message, see package
// internal/consumer for how.
func (cs *consumerImpl) AckID(id MessageID) error {
	id, err := ownID(id)
	if err != nil {
		return err
	}
	e, err := cs.engineFor(id)
	if err != nil {
		return err
	}
	return consumerErr("ack", e.Ack(context.Background(), id))
}

// AckCumulative acknowledges every message of msg's partition up to msg.
func (cs *consumerImpl) AckCumulative(msg Message) error {
	e, id, err := cs.engineOf(msg)
	if err != nil {
		return err
	}
	return consumerErr("ack cumulative", e.AckCumulative(context.Background(), id))
}

// AckIDCumulative acknowledges every message of id's partition up to id.
func (cs *consumerImpl) AckIDCumulative(id MessageID) error {
	id, err := ownID(id)
	if err != nil {
		return err
	}
	e, err := cs.engineFor(id)
	if err != nil {
		return err
	}
	return consumerErr("ack cumulative", e.AckCumulative(context.Background(), id))
}

// Nack asks for msg's redelivery after NackRedeliveryDelay.
func (cs *consumerImpl) Nack(msg Message) {
	if e, id, err := cs.engineOf(msg); err == nil {
		e.Nack(id)
	}
}

// NackID is Nack by id.
func (cs *consumerImpl) NackID(id MessageID) {
	id, err := ownID(id)
	if err != nil {
		return
	}
	if e, err := cs.engineFor(id); err == nil {
		e.Nack(id)
	}
}

// Seek resets the subscription: Earliest and Latest on every partition, an
// id on its partition or topic (see Consumer.Seek for what comes next).
// Unlike the official client it works on partitioned and multi-topic
// consumers.
func (cs *consumerImpl) Seek(id MessageID) error {
	id, err := ownID(id)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), cs.c.seekTimeout())
	defer cancel()
	if isEdge(id) {
		return cs.forAll(func(e *consumerEngine) error { return e.Seek(ctx, id) }, "seek")
	}
	e, err := cs.engineFor(id)
	if err != nil {
		return err
	}
	return consumerErr("seek", e.Seek(ctx, id))
}

// SeekByTime resets every partition to the first message published at or
// after t.
func (cs *consumerImpl) SeekByTime(t time.Time) error {
	ctx, cancel := context.WithTimeout(context.Background(), cs.c.seekTimeout())
	defer cancel()
	return cs.forAll(func(e *consumerEngine) error { return e.SeekByTime(ctx, t) }, "seek by time")
}

// forAll runs f on every engine concurrently.
func (cs *consumerImpl) forAll(f func(*consumerEngine) error, op string) error {
	errs := make([]error, len(cs.engines))
	var wg sync.WaitGroup
	for i, e := range cs.engines {
		wg.Go(func() { errs[i] = f(e) })
	}
	wg.Wait()
	return consumerErr(op, errors.Join(errs...))
}

// Unsubscribe deletes the subscription and closes the consumer.
func (cs *consumerImpl) Unsubscribe() error {
	ctx, cancel := cs.c.opContext()
	defer cancel()
	err := cs.forAll(func(e *consumerEngine) error { return e.Unsubscribe(ctx) }, "unsubscribe")
	if err == nil {
		cs.Close()
	}
	return err
}

// Close sends pending acknowledgments and closes the consumer.
func (cs *consumerImpl) Close() {
	cs.closeOnce.Do(func() {
		close(cs.closed)
		cs.closeEngines()
		cs.c.unregister(cs)
	})
}

func (cs *consumerImpl) closeEngines() {
	var wg sync.WaitGroup
	for _, e := range cs.engines {
		if e != nil {
			wg.Go(e.Close)
		}
	}
	wg.Wait()
	if cs.dlq != nil {
		cs.dlq.close()
	}
}
