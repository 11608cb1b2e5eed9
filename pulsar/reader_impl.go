package pulsar

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/consumer"
	"github.com/pulsargo/sdk/messageid"
)

// readerImpl is the Reader: a non-durable subscription per partition.
type readerImpl struct {
	c       *client
	topic   string
	ch      chan ConsumerMessage
	engines []*consumerEngine

	closeOnce sync.Once
	metrics   api.Recorder // the topic's metrics (metrics.go)
	closed    chan struct{}
}

func (c *client) createReader(opts ReaderOptions) (Reader, error) {
	switch {
	case opts.Topic == "":
		return nil, invalidOption(InvalidConfiguration, "Topic is required")
	case opts.StartMessageID == nil:
		return nil, fmt.Errorf("%w: reader needs a StartMessageID", ErrInvalidOptions)
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
	targets, err := c.consumerTargets(ctx, []string{opts.Topic})
	if err != nil {
		return nil, err
	}
	start, err := ownID(opts.StartMessageID)
	if err != nil {
		return nil, err
	}
	first := messageid.FirstChunk(start)
	if len(targets) > 1 && !isEdge(start) {
		return nil, fmt.Errorf("%w: a reader of a topic with %d partitions starts at EarliestMessageID or LatestMessageID",
			ErrInvalidOptions, len(targets))
	}
	sub := opts.SubscriptionName
	if sub == "" {
		sub = randomName(cmp.Or(opts.SubscriptionRolePrefix, "reader"))
	}
	r := &readerImpl{c: c, topic: opts.Topic, ch: make(chan ConsumerMessage), closed: make(chan struct{}),
		metrics: c.topicMetrics(opts.Topic)}
	wrap := func(m *consumer.Message) ConsumerMessage { return ConsumerMessage{Message: newMessage(m, schemas)} }
	r.engines = make([]*consumerEngine, len(targets))
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		o := c.consumerEngineOptions(t, r.ch, wrap)
		o.Subscription, o.Name = sub, opts.Name
		o.Properties = opts.Properties
		o.NonDurable, o.Reader = true, true
		o.StartID, o.StartInclusive = start, opts.StartMessageIDInclusive
		o.ReadCompacted = opts.ReadCompacted
		o.Schema = schemas.protoSchema()
		o.ReceiverQueueSize = opts.ReceiverQueueSize
		o.Backoff = opts.BackoffPolicyFunc
		o.Chunks = chunk.Options{MaxPendingMessages: opts.MaxPendingChunkedMessage, MaxPendingBytes: opts.MaxPendingChunkedBytes,
			ExpireAfter: opts.ExpireTimeOfIncompleteChunk}
		o.StreamWindow = opts.StreamWindow
		o.AckIncompleteChunks = chunkPolicy(opts.IncompleteChunkPolicy, opts.AutoAckIncompleteChunk) == ChunkAck
		applyDecryption(&o, opts.Decryption, o.Logger)
		e := consumer.New(o)
		r.engines[i] = e
		wg.Go(func() {
			if errs[i] = e.Start(ctx); errs[i] == nil && first == messageid.Latest() {
				errs[i] = e.StartAtLastMessage(ctx, opts.StartMessageIDInclusive)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		r.closeEngines()
		return nil, consumerErr("create reader on "+opts.Topic, err)
	}
	if err := c.register(r); err != nil {
		r.closeEngines()
		return nil, err
	}
	// The official client's reader is a consumer, and counted as one too.
	r.metrics.Add(api.MetricReadersOpened, 1)
	r.metrics.Add(api.MetricConsumersOpened, 1)
	return r, nil
}

func (r *readerImpl) Topic() string { return r.topic }

// Next returns the next message; a streamed one (see MessageStream) is
// given back with an error.
func (r *readerImpl) Next(ctx context.Context) (Message, error) {
	msg, err := r.next(ctx)
	if err != nil {
		return nil, err
	}
	return tooLargeToReceive(msg)
}

// next returns the next message, streamed or not.
func (r *readerImpl) next(ctx context.Context) (Message, error) {
	select {
	case m := <-r.ch:
		return m.Message, nil
	case <-r.closed:
		return nil, ErrConsumerClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// HasNext reports whether a message is queued or the broker has one after
// the last one read; it asks the broker, within the operation timeout.
func (r *readerImpl) HasNext() bool {
	ctx, cancel := r.c.opContext()
	defer cancel()
	for _, e := range r.engines {
		if ok, err := e.HasNext(ctx); err == nil && ok {
			return true
		}
	}
	return false
}

// Seek moves the reader (see Reader.Seek for what comes next).
func (r *readerImpl) Seek(id MessageID) error {
	id, err := ownID(id)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.c.seekTimeout())
	defer cancel()
	if len(r.engines) == 1 || isEdge(id) {
		return r.forAll(func(e *consumerEngine) error { return e.Seek(ctx, id) }, "seek")
	}
	for _, e := range r.engines {
		if e.Partition() == id.PartitionIdx() {
			return consumerErr("seek", e.Seek(ctx, id))
		}
	}
	return fmt.Errorf("%w: id %v names partition %d, which %s does not have", ErrInvalidOptions, id, id.PartitionIdx(), r.topic)
}

// SeekByTime moves the reader to the first message published at or after
// t.
func (r *readerImpl) SeekByTime(t time.Time) error {
	ctx, cancel := context.WithTimeout(context.Background(), r.c.seekTimeout())
	defer cancel()
	return r.forAll(func(e *consumerEngine) error { return e.SeekByTime(ctx, t) }, "seek by time")
}

func (r *readerImpl) forAll(f func(*consumerEngine) error, op string) error {
	errs := make([]error, len(r.engines))
	var wg sync.WaitGroup
	for i, e := range r.engines {
		wg.Go(func() { errs[i] = f(e) })
	}
	wg.Wait()
	return consumerErr(op, errors.Join(errs...))
}

// GetLastMessageID returns the id of the topic's last message. A reader
// of a partitioned topic has no single last message: it fails with Result
// OperationNotSupported, as the official client's.
func (r *readerImpl) GetLastMessageID() (MessageID, error) {
	if len(r.engines) > 1 {
		return nil, newError(OperationNotSupported, "GetLastMessageID is not supported for multi-topics reader")
	}
	ctx, cancel := r.c.opContext()
	defer cancel()
	id, err := r.engines[0].GetLastMessageID(ctx)
	if err != nil {
		return nil, consumerErr("get last message id", err)
	}
	return id, nil
}

// Close closes the reader.
func (r *readerImpl) Close() {
	r.closeOnce.Do(func() {
		close(r.closed)
		r.closeEngines()
		r.c.unregister(r)
		r.metrics.Add(api.MetricReadersClosed, 1)
		r.metrics.Add(api.MetricConsumersClosed, 1)
	})
}

func (r *readerImpl) closeEngines() {
	var wg sync.WaitGroup
	for _, e := range r.engines {
		if e != nil {
			wg.Go(e.Close)
		}
	}
	wg.Wait()
}
