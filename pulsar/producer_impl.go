package pulsar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/producer"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/topicname"
	"github.com/pulsargo/sdk/messageid"
)

// partitionedProducer is the Producer: one engine per partition (one for a
// topic without partitions) and a router.
type partitionedProducer struct {
	c       *client
	topic   string
	opts    ProducerOptions
	router  func(*ProducerMessage, TopicMetadata) int
	disc    *discovery       // partition discovery (partition_discovery.go), nil without partitions
	schemas *producerSchemas // the producer's schema and the versions of its messages' schemas
	metrics api.Recorder     // the topic's metrics (metrics.go)
	crypto  *producerCrypto  // end-to-end encryption, nil for none
	bufs    producer.Buffers // batch payload buffers its partitions share
	done    producer.Done    // asyncDone, made once

	mu    sync.RWMutex // guards parts, which discovery grows
	parts []*producer.Producer

	closeOnce sync.Once
}

func (c *client) createProducer(opts ProducerOptions) (Producer, error) {
	if opts.Topic == "" {
		return nil, invalidOption(InvalidTopicName, "Topic name is required for producer")
	}
	if opts.CompressionType < NoCompression || opts.CompressionType > SNAPPY {
		return nil, fmt.Errorf("%w: unknown compression type %d", ErrInvalidOptions, opts.CompressionType)
	}
	if opts.ProducerAccessMode < ProducerAccessModeShared || opts.ProducerAccessMode > ProducerAccessModeWaitForExclusive {
		return nil, fmt.Errorf("%w: unknown producer access mode %d", ErrInvalidOptions, opts.ProducerAccessMode)
	}
	if !opts.DisableBatching {
		// As the official producer: an unknown batch builder fails the
		// producer when it would batch.
		if _, err := GetBatcherBuilderProvider(opts.BatcherBuilderType); err != nil {
			return nil, err
		}
	}
	schemas, err := newProducerSchemas(opts)
	if err != nil {
		return nil, err
	}
	pcrypto, err := newProducerCrypto(opts, c.log)
	if err != nil {
		return nil, err
	}
	if c.isClosed() {
		return nil, ErrClientClosed
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.OperationTimeout)
	defer cancel()
	names, err := c.partitions(ctx, opts.Topic)
	if err != nil {
		return nil, err
	}
	p := &partitionedProducer{c: c, topic: opts.Topic, opts: opts, parts: make([]*producer.Producer, len(names)), schemas: schemas, crypto: pcrypto}
	p.metrics = c.topicMetrics(opts.Topic)
	p.done = p.asyncDone
	if opts.MessageRouter != nil {
		p.router = opts.MessageRouter
	} else {
		p.router = defaultRouterFor(withBatchDefaults(opts))
	}
	partitioned := len(names) > 1 || names[0] != topicFull(opts.Topic)
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		part := int32(-1)
		if partitioned {
			part = int32(i)
		}
		wg.Go(func() {
			p.parts[i], errs[i] = producer.New(ctx, p.engineOptions(name, part))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, pp := range p.parts {
			if pp != nil {
				pp.Close(ctx)
			}
		}
		return nil, producerErr("create producer on "+opts.Topic, err)
	}
	if partitioned {
		p.followPartitions()
	}
	p.metrics.Add(api.MetricProducersOpened, 1)
	if err := c.register(p); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// engineOptions returns the options of the engine of one partition (part
// -1 for a topic without partitions), with the producer's schema.
func (p *partitionedProducer) engineOptions(name string, part int32) producer.Options {
	eo := p.c.engineOptions(p.opts, name, part)
	eo.Metrics = p.metrics
	eo.Encryptor = p.crypto.engine()
	eo.Buffers = &p.bufs
	if p.schemas.schema != nil {
		eo.Schema = schemaProto(p.schemas.schema.GetSchemaInfo())
	}
	return eo
}

// topicFull returns the fully qualified form of a topic name, or the name
// itself when it does not parse (partitions() has checked it already).
func topicFull(topic string) string {
	n, err := topicname.Parse(topic)
	if err != nil {
		return topic
	}
	return n.Full
}

// withBatchDefaults fills the batching options the router reads.
func withBatchDefaults(o ProducerOptions) ProducerOptions {
	if o.BatchingMaxMessages == 0 {
		o.BatchingMaxMessages = producer.DefaultBatchMaxMessages
	}
	if o.BatchingMaxSize == 0 {
		o.BatchingMaxSize = producer.DefaultBatchMaxBytes
	}
	if o.BatchingMaxPublishDelay <= 0 {
		o.BatchingMaxPublishDelay = producer.DefaultBatchMaxDelay
	}
	return o
}

// engineOptions are the options of the engine of one partition.
func (c *client) engineOptions(o ProducerOptions, topic string, partition int32) producer.Options {
	id := c.nextID()
	eo := producer.Options{
		Topic: topic, Partition: partition, ProducerID: id, Name: o.Name, Properties: o.Properties,
		Connect: func(ctx context.Context) (producer.Conn, error) {
			cn, err := c.connFor(ctx, topic, id)
			if err != nil {
				return nil, err
			}
			return cn, nil
		},
		OperationTimeout:        c.opts.OperationTimeout,
		SendTimeout:             o.SendTimeout,
		MaxPendingMessages:      o.MaxPendingMessages,
		DisableBlockIfQueueFull: o.DisableBlockIfQueueFull,
		Compression:             compress.Type(o.CompressionType),
		DisableBatching:         o.DisableBatching,
		KeyBasedBatching:        o.BatcherBuilderType == KeyBasedBatchBuilder,
		BatchMaxMessages:        int(min(o.BatchingMaxMessages, 1<<30)),
		BatchMaxBytes:           int(min(o.BatchingMaxSize, 1<<30)),
		BatchMaxDelay:           o.BatchingMaxPublishDelay,
		EnableChunking:          o.EnableChunking,
		ChunkMaxSize:            int(min(o.ChunkMaxMessageSize, 1<<30)),
		InitialSubscription:     o.initialSubscriptionName,
		AccessMode:              proto.ProducerAccessMode(o.ProducerAccessMode),
		Backoff:                 o.BackOffPolicyFunc,
		MaxReconnect:            o.MaxReconnectToBroker,
		Logger:                  c.log,
	}
	if c.mem.limit > 0 {
		eo.Memory = producerMemory{c.mem}
	}
	return eo
}

func (p *partitionedProducer) Topic() string { return p.topic }

// Name returns the producer name; with partitions, that of partition 0.
func (p *partitionedProducer) Name() string { return p.partitions()[0].Name() }

// pick routes msg to a partition's engine.
func (p *partitionedProducer) pick(msg *ProducerMessage) (*producer.Producer, error) {
	parts := p.partitions()
	if len(parts) == 1 {
		return parts[0], nil
	}
	i := p.router(msg, topicMetadata{n: uint32(len(parts))})
	if i < 0 || i >= len(parts) {
		return nil, fmt.Errorf("%w: MessageRouter returned partition %d of %d", ErrInvalidOptions, i, len(parts))
	}
	return parts[i], nil
}

func (p *partitionedProducer) Send(ctx context.Context, msg *ProducerMessage) (MessageID, error) {
	if msg == nil {
		return nil, fmt.Errorf("%w: %w: message is nil", ErrInvalidMessage, ErrInvalidOptions)
	}
	pp, err := p.pick(msg)
	if err != nil {
		return nil, err
	}
	p.opts.Interceptors.BeforeSend(p, msg)
	m, version, err := p.schemas.prepare(ctx, pp, msg)
	if err != nil {
		return nil, err
	}
	end, err := txnSend(ctx, msg, pp.Topic())
	if err != nil {
		return nil, err
	}
	id, err := sendIn(ctx, pp, &m, version, end)
	if err != nil {
		return nil, producerErr("send to "+pp.Topic(), err)
	}
	p.opts.Interceptors.OnSendAcknowledgement(p, msg, id)
	return id, nil
}

func (p *partitionedProducer) SendAsync(ctx context.Context, msg *ProducerMessage, callback func(MessageID, *ProducerMessage, error)) {
	if callback == nil {
		callback = func(MessageID, *ProducerMessage, error) {}
	}
	if msg == nil {
		callback(nil, msg, fmt.Errorf("%w: %w: message is nil", ErrInvalidMessage, ErrInvalidOptions))
		return
	}
	pp, err := p.pick(msg)
	if err != nil {
		callback(nil, msg, err)
		return
	}
	p.opts.Interceptors.BeforeSend(p, msg)
	m, version, err := p.schemas.prepare(ctx, pp, msg)
	if err != nil {
		callback(nil, msg, err)
		return
	}
	topic := pp.Topic()
	end, err := txnSend(ctx, msg, topic)
	if err != nil {
		callback(nil, msg, err)
		return
	}
	if end == nil && len(p.opts.Interceptors) == 0 {
		// The common case: no closure per message (see asyncDone).
		pp.SendAsyncDone(ctx, &m, version, p.done, callback, msg)
		return
	}
	var receipted producer.Receipted
	if len(p.opts.Interceptors) > 0 {
		// On the connection's reader before the callback, as the official
		// client runs interceptors: a message received later from the
		// connection comes after them.
		receipted = func(id messageid.MessageID) { p.opts.Interceptors.OnSendAcknowledgement(p, msg, id) }
	}
	pp.SendAsyncReceipted(ctx, &m, version, receipted, func(id messageid.MessageID, err error) {
		if end != nil {
			end(err)
		}
		if err != nil {
			callback(nil, msg, producerErr("send to "+topic, err))
			return
		}
		callback(id, msg, nil)
	})
}

// asyncDone completes a SendAsync without interceptors or transaction: a
// is the caller's callback, b its message. One method value for every
// send, where a closure holding the two would be allocated per message.
func (p *partitionedProducer) asyncDone(from *producer.Producer, id messageid.MessageID, err error, a, b any) {
	callback, msg := a.(func(MessageID, *ProducerMessage, error)), b.(*ProducerMessage)
	if err != nil {
		callback(nil, msg, producerErr("send to "+from.Topic(), err))
		return
	}
	callback(id, msg, nil)
}

func (p *partitionedProducer) SendReader(ctx context.Context, msg *ProducerMessage, r io.Reader, size int64) (MessageID, error) {
	if msg == nil {
		return nil, fmt.Errorf("%w: %w: message is nil", ErrInvalidMessage, ErrInvalidOptions)
	}
	if msg.Payload != nil || msg.Value != nil {
		return nil, fmt.Errorf("%w: SendReader reads the payload from its reader: Payload and Value must be nil", ErrInvalidOptions)
	}
	pp, err := p.pick(msg)
	if err != nil {
		return nil, err
	}
	p.opts.Interceptors.BeforeSend(p, msg)
	m, version, err := p.schemas.prepare(ctx, pp, msg)
	if err != nil {
		return nil, err
	}
	end, err := txnSend(ctx, msg, pp.Topic())
	if err != nil {
		return nil, err
	}
	var done producer.Callback
	if end != nil {
		done = func(_ messageid.MessageID, err error) { end(err) }
	}
	id, err := pp.SendReader(ctx, &m, version, r, size, done)
	if err != nil {
		return nil, producerErr("send to "+pp.Topic(), err)
	}
	p.opts.Interceptors.OnSendAcknowledgement(p, msg, id)
	return id, nil
}

// producerErr converts the engine's broker errors to *ServerError and its
// *Error to this package's (publicErr).
func producerErr(op string, err error) error {
	if _, ok := serverCode(err); ok {
		return wrapErr(op, err)
	}
	return publicErr(err)
}

func (p *partitionedProducer) LastSequenceID() int64 {
	last := int64(-1)
	for _, pp := range p.partitions() {
		last = max(last, pp.LastSequenceID())
	}
	return last
}

func (p *partitionedProducer) Flush() error {
	return p.FlushWithCtx(context.Background())
}

func (p *partitionedProducer) FlushWithCtx(ctx context.Context) error {
	parts := p.partitions()
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, pp := range parts {
		wg.Go(func() { errs[i] = publicErr(pp.Flush(ctx)) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (p *partitionedProducer) Stats() ProducerStats {
	var s ProducerStats
	for _, pp := range p.partitions() {
		addStats(&s, pp.Stats())
	}
	return s
}

func (p *partitionedProducer) Close() {
	p.closeOnce.Do(func() {
		p.c.unregister(p)
		p.disc.stop()
		p.closeParts()
		p.metrics.Add(api.MetricProducersClosed, 1)
	})
}

// closeParts closes every partition's engine, flushing for at most the
// send timeout (or the operation timeout when it is off).
func (p *partitionedProducer) closeParts() {
	d := p.c.opts.OperationTimeout
	if st := p.opts.SendTimeout; st >= 0 {
		if st == 0 {
			st = producer.DefaultSendTimeout
		}
		d = max(d, st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d+time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, pp := range p.partitions() {
		wg.Go(func() { pp.Close(ctx) })
	}
	wg.Wait()
}
