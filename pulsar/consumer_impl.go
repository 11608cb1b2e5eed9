package pulsar

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/consumer"
)

// consumerImpl is the Consumer: one engine per partition of every topic,
// all lending their queues to one outbox that Receive takes from, or (with
// MessageChannel, interceptors, a zero queue, or once Chan was called)
// delivering onto one channel.
type consumerImpl struct {
	c      *client
	opts   ConsumerOptions
	name   string
	ch     chan ConsumerMessage
	set    engineSet        // the partitions consumed (partition_discovery.go)
	single bool             // one topic: ids route by partition index
	disc   *discovery       // partition and topic discovery, nil when there is none
	schema *consumerSchemas // decodes values by the version each message carries

	out     chan ConsumerMessage // where engines deliver: ch, or the interceptors' relay
	letters *letterRouter        // dead-letter and retry letter topics, nil without DLQ
	cb      *callbacks           // listener and interceptor calls, nil without them
	relayWG sync.WaitGroup       // the interceptors' relay (consumer_events.go)

	nackBackoff NackBackoffPolicy // nil: NackRedeliveryDelay
	self        Consumer          // what the application holds: cs, or its zeroQueueConsumer

	closeOnce sync.Once
	closed    chan struct{}
	metrics   api.Recorder // the first topic's metrics (metrics.go)

	// receivers counts the Receive calls waiting: the engines keep a
	// message over the consumer memory budget compressed until one waits
	// (consumer.Options.Receivers). Not used (every engine decompresses
	// the head of its queue) with MessageChannel or a zero queue; Chan
	// raises it for good (chanRead), since its reads cannot be seen.
	receivers atomic.Int64
	parked    atomic.Int32 // engines holding entries back compressed (consumer.Options.Parked)
	hold      bool         // receivers is used
	chanRead  sync.Once

	// outbox is where the engines lend their queued messages to Receive
	// (see consumer.Outbox); nil with MessageChannel, interceptors or a
	// zero queue, whose engines deliver on out. Chan closes it: the
	// engines then deliver on ch.
	outbox *consumer.Outbox[ConsumerMessage]
}

func (c *client) subscribe(opts ConsumerOptions) (Consumer, error) {
	pattern := opts.Topic == "" && len(opts.Topics) == 0
	switch {
	case pattern && opts.TopicsPattern == "":
		return nil, invalidOption(TopicNotFound, "topic is required")
	case opts.SubscriptionName == "":
		return nil, invalidOption(SubscriptionNotFound, "subscription name is required for consumer")
	case opts.Type < Exclusive || opts.Type > KeyShared:
		return nil, fmt.Errorf("%w: unknown subscription type %d", ErrInvalidOptions, opts.Type)
	case opts.RetryEnable && opts.EnableZeroQueueConsumer:
		return nil, fmt.Errorf("%w: ZeroQueueConsumer is not supported with RetryEnable", ErrInvalidOptions)
	case opts.EnableZeroQueueConsumer && pattern:
		return nil, fmt.Errorf("%w: ZeroQueueConsumer is not supported with TopicsPattern", ErrInvalidOptions)
	case opts.NackPrecisionBit != nil && *opts.NackPrecisionBit < 0:
		return nil, invalidOption(InvalidConfiguration, "NackPrecisionBit cannot be negative")
	}
	schemas, err := newConsumerSchemas(c, opts.Schema)
	if err != nil {
		return nil, err
	}
	if c.isClosed() {
		return nil, ErrClientClosed
	}
	ctx, cancel := c.opContext()
	defer cancel()
	source := opts.Topic // the dead-letter producer's name starts with it
	if opts.RetryEnable {
		if source == "" && len(opts.Topics) == 1 {
			source = opts.Topics[0]
		}
		if err := c.retryDefaults(ctx, &opts); err != nil {
			return nil, err
		}
	}
	if opts.DLQ != nil && opts.DLQ.MaxDeliveries == 0 {
		return nil, fmt.Errorf("%w: DLQ needs MaxDeliveries > 0", ErrInvalidOptions)
	}
	if pattern {
		return c.subscribePattern(opts, schemas)
	}
	topics := opts.Topics
	if opts.Topic != "" {
		topics = append([]string{opts.Topic}, topics...)
	}
	cs := c.newConsumerImpl(opts, len(topics) == 1, schemas, source)
	if err := cs.addTopics(ctx, topics); err != nil {
		cs.closeEngines()
		return nil, consumerErr("subscribe to "+topics[0], err)
	}
	if !opts.EnableZeroQueueConsumer {
		cs.followPartitions()
	}
	cs.metrics.Add(api.MetricConsumersOpened, 1)
	if err := c.register(cs); err != nil {
		cs.Close()
		return nil, err
	}
	return cs.self, nil
}

// newConsumerImpl returns a consumer with no partitions yet.
// source is the topic the dead-letter producer's name starts with.
func (c *client) newConsumerImpl(opts ConsumerOptions, single bool, schemas *consumerSchemas, source string) *consumerImpl {
	cs := &consumerImpl{
		c: c, opts: opts, name: opts.Name, ch: opts.MessageChannel, single: single, schema: schemas,
		nackBackoff: nackPolicy(opts), closed: make(chan struct{}),
	}
	cs.self = cs
	cs.metrics = c.topicMetrics(cmp.Or(opts.Topic, opts.TopicsPattern))
	if opts.Topic == "" && len(opts.Topics) > 0 {
		cs.metrics = c.topicMetrics(opts.Topics[0])
	}
	if opts.EnableZeroQueueConsumer {
		cs.self = &zeroQueueConsumer{consumerImpl: cs}
	}
	if cs.name == "" {
		cs.name = randomName("consumer")
	}
	if cs.ch == nil {
		cs.ch = make(chan ConsumerMessage)
		cs.hold = !opts.EnableZeroQueueConsumer
	}
	if opts.DLQ != nil {
		cs.letters = newLetterRouter(c, *opts.DLQ, opts.SubscriptionName, cs.name, source,
			func(id MessageID) { _ = cs.acked(id, nil) })
	}
	if opts.EventListener != nil || len(opts.Interceptors) > 0 {
		cs.cb = newCallbacks()
	}
	cs.out = cs.ch
	if cs.hold && len(opts.Interceptors) == 0 {
		cs.outbox = consumer.NewOutbox[ConsumerMessage]()
	}
	if len(opts.Interceptors) > 0 {
		in := make(chan ConsumerMessage)
		cs.out = in
		cs.relayWG.Add(1)
		go cs.relay(in)
	}
	return cs
}

func (cs *consumerImpl) Subscription() string { return cs.opts.SubscriptionName }

func (cs *consumerImpl) Name() string { return cs.name }

// Receive returns the next message of any partition; a streamed one (see
// MessageStream) is given back with an error.
func (cs *consumerImpl) Receive(ctx context.Context) (Message, error) {
	msg, err := cs.receive(ctx)
	if err != nil {
		return nil, err
	}
	return tooLargeToReceive(msg)
}

// receive returns the next message of any partition, streamed or not.
func (cs *consumerImpl) receive(ctx context.Context) (Message, error) {
	var ready <-chan struct{}
	if ob := cs.outbox; ob != nil {
		if m, ok := ob.Take(); ok {
			return m.Message, nil
		}
		ready = ob.Ready()
	}
	if cs.hold {
		select {
		case m := <-cs.ch:
			return m.Message, nil
		default:
		}
		// Nothing ready: a message held back compressed for the memory
		// budget may be decompressed while this Receive waits.
		cs.receivers.Add(1)
		defer cs.receivers.Add(-1)
		cs.wakeEngines()
	}
	for {
		select {
		case <-ready:
			if m, ok := cs.outbox.Take(); ok {
				return m.Message, nil
			}
		case m := <-cs.ch:
			return m.Message, nil
		case <-cs.closed:
			return nil, ErrConsumerClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Chan returns the channel messages arrive on (MessageChannel when set).
// Its reads are not seen by the engines, so from now on they decompress
// their next message when their queue is empty, whatever the memory budget
// says (see ClientOptions.ConsumerMemoryLimitBytes), and they deliver each
// message on it rather than lend their queues to Receive (the outbox is
// closed: what it held is delivered on the channel).
func (cs *consumerImpl) Chan() <-chan ConsumerMessage {
	if cs.hold {
		cs.chanRead.Do(func() {
			if cs.outbox != nil {
				cs.outbox.Close()
			}
			cs.receivers.Add(1 << 40)
			cs.wakeEngines()
		})
	}
	return cs.ch
}

// wakeEngines tells the engines that cs.receivers was raised; only those
// holding entries back compressed have anything to do, and while none does
// it costs one atomic load, not one per partition: waking a thousand
// partitions was a fifth of W6's receive CPU.
func (cs *consumerImpl) wakeEngines() {
	if cs.parked.Load() == 0 {
		return
	}
	for _, e := range cs.set.all() {
		e.Wake()
	}
}

// engineOf returns the engine of a received message and its id as this
// SDK's value.
func (cs *consumerImpl) engineOf(msg Message) (*consumerEngine, MessageID, error) {
	msg = unwrapStream(msg)
	id, err := ownID(msg.ID())
	if err != nil {
		return nil, nil, err
	}
	if m, ok := msg.(*message); ok && m.engine != nil && m.from == cs {
		return m.engine, id, nil
	}
	if e := cs.set.named(msg.Topic()); e != nil {
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
	engines := cs.set.all()
	if len(engines) == 1 {
		return engines[0], nil
	}
	if cs.single {
		// The engines are in partition order (discovery appends new
		// partitions): the id's partition is found without a scan of a
		// thousand engines per AckID.
		if i := int(id.PartitionIdx()); i >= 0 && i < len(engines) && engines[i].Partition() == id.PartitionIdx() {
			return engines[i], nil
		}
		for _, e := range engines {
			if e.Partition() == id.PartitionIdx() {
				return e, nil
			}
		}
		return nil, fmt.Errorf("%w: id %v names partition %d, which this consumer does not have", ErrInvalidOptions, id, id.PartitionIdx())
	}
	var found []*consumerEngine
	for _, e := range engines {
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
	return cs.acked(id, consumerErr("ack", e.Ack(context.Background(), id)))
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
	return cs.acked(id, consumerErr("ack", e.Ack(context.Background(), id)))
}

// AckCumulative acknowledges every message of msg's partition up to msg.
func (cs *consumerImpl) AckCumulative(msg Message) error {
	e, id, err := cs.engineOf(msg)
	if err != nil {
		return err
	}
	return cs.acked(id, consumerErr("ack cumulative", e.AckCumulative(context.Background(), id)))
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
	return cs.acked(id, consumerErr("ack cumulative", e.AckCumulative(context.Background(), id)))
}

// acked tells the interceptors of an accepted acknowledgment; it returns
// err.
func (cs *consumerImpl) acked(id MessageID, err error) error {
	if err == nil {
		cs.opts.Interceptors.OnAcknowledge(cs.self, id)
	}
	return err
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
	engines := cs.set.all()
	errs := make([]error, len(engines))
	var wg sync.WaitGroup
	for i, e := range engines {
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
		cs.disc.stop()
		cs.closeEngines()
		cs.c.unregister(cs)
		cs.metrics.Add(api.MetricConsumersClosed, 1)
	})
}

// closeEngines closes the letter router first (what it moved is
// acknowledged while the engines are open), then the engines, then the
// goroutines that call the application.
func (cs *consumerImpl) closeEngines() {
	if cs.letters != nil {
		cs.letters.close()
	}
	var wg sync.WaitGroup
	for _, e := range cs.set.all() {
		wg.Go(e.Close)
	}
	wg.Wait()
	select {
	case <-cs.closed:
	default:
		close(cs.closed)
	}
	if cs.outbox != nil {
		cs.outbox.Close() // the closed engines recalled what it holds
	}
	cs.relayWG.Wait()
	if cs.cb != nil {
		cs.cb.close()
	}
}
