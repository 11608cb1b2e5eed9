package pulsar

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/consumer"
	"github.com/pulsargo/sdk/internal/proto"
)

// consumerEngine is one partition's engine as package pulsar uses it.
type consumerEngine = consumer.Engine[ConsumerMessage]

// partitionTarget is a topic or partition to consume, with its index.
type partitionTarget struct {
	name      string // full name
	base      string // without partition suffix
	partition int32  // -1 for a topic without partitions
}

// consumerTargets resolves topics into the partitions to consume.
func (c *client) consumerTargets(ctx context.Context, topics []string) ([]partitionTarget, error) {
	var out []partitionTarget
	for _, t := range topics {
		st, err := c.resolveTopic(ctx, t, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, st.targets...)
	}
	return out, nil
}

// randomName returns a consumer or subscription name unique enough for a
// broker: prefix and 10 hex digits.
func randomName(prefix string) string {
	var b [5]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// consumerEngineOptions are the engine options common to consumers and
// readers.
func (c *client) consumerEngineOptions(t partitionTarget, out chan ConsumerMessage, wrap func(*consumer.Message) ConsumerMessage) consumer.Options[ConsumerMessage] {
	id := c.nextID()
	return consumer.Options[ConsumerMessage]{
		Topic:            t.name,
		Partition:        t.partition,
		OperationTimeout: c.opts.OperationTimeout,
		Logger:           c.log,
		Metrics:          c.topicMetrics(t.name),
		Connect:          func(ctx context.Context) (*conn.Conn, error) { return c.connFor(ctx, t.name, id) },
		ConsumerID:       id,
		Out:              out,
		Wrap:             wrap,
		Memory:           c.consumerMem,
	}
}

// applyConsumerOptions maps ConsumerOptions onto engine options.
func applyConsumerOptions(o *consumer.Options[ConsumerMessage], opts ConsumerOptions) {
	o.Subscription = opts.SubscriptionName
	o.SubType = proto.CommandSubscribe_SubType(opts.Type)
	o.NonDurable = opts.SubscriptionMode == NonDurable
	o.InitialPosition = proto.CommandSubscribe_Latest
	if opts.SubscriptionInitialPosition == SubscriptionPositionEarliest {
		o.InitialPosition = proto.CommandSubscribe_Earliest
	}
	o.Name = opts.Name
	o.Properties = opts.Properties
	o.SubscriptionProperties = opts.SubscriptionProperties
	o.ReadCompacted = opts.ReadCompacted
	o.ReceiverQueueSize = opts.ReceiverQueueSize
	o.ZeroQueue = opts.EnableZeroQueueConsumer
	o.AutoScaleQueue = opts.EnableAutoScaledReceiverQueueSize
	o.NackDelay = opts.NackRedeliveryDelay
	o.NackPrecisionBit = defaultNackPrecisionBit
	if opts.NackPrecisionBit != nil {
		o.NackPrecisionBit = *opts.NackPrecisionBit
	}
	o.ReplicateSubscriptionState = opts.ReplicateSubscriptionState
	o.AckTimeout = opts.AckTimeout
	o.AckWithResponse = opts.AckWithResponse
	o.BatchIndexAck = opts.EnableBatchIndexAcknowledgment
	o.StartInclusive = opts.StartMessageIDInclusive
	o.Backoff, o.MaxReconnect = opts.BackOffPolicyFunc, opts.MaxReconnectToBroker
	if g := opts.AckGroupingOptions; g != nil {
		o.AckGroupTime, o.AckGroupSize = g.MaxTime, int(g.MaxSize)
		if g.MaxTime == 0 && g.MaxSize <= 1 {
			o.AckGroupTime = -1
		}
	}
	o.Chunks = chunk.Options{
		MaxPendingMessages: opts.MaxPendingChunkedMessage,
		MaxPendingBytes:    opts.MaxPendingChunkedBytes,
		ExpireAfter:        opts.ExpireTimeOfIncompleteChunk,
	}
	o.StreamWindow = opts.StreamWindow
	o.AckIncompleteChunks = chunkPolicy(opts.IncompleteChunkPolicy, opts.AutoAckIncompleteChunk) == ChunkAck
	if opts.Type == KeyShared {
		o.KeySharedMeta = keySharedMeta(opts.KeySharedPolicy)
	}
	applyDecryption(o, opts.Decryption, o.Logger)
}

// chunkPolicy is p, or ChunkAck with the official client's
// AutoAckIncompleteChunk.
func chunkPolicy(p ChunkPolicy, autoAck bool) ChunkPolicy {
	if autoAck {
		return ChunkAck
	}
	return p
}

func keySharedMeta(p *KeySharedPolicy) *proto.KeySharedMeta {
	m := &proto.KeySharedMeta{KeySharedMode: proto.KeySharedMode_AUTO_SPLIT.Enum()}
	if p == nil {
		return m
	}
	if p.Mode == KeySharedPolicyModeSticky {
		m.KeySharedMode = proto.KeySharedMode_STICKY.Enum()
		for i := 0; i+1 < len(p.HashRanges); i += 2 {
			m.HashRanges = append(m.HashRanges, &proto.IntRange{
				Start: gproto.Int32(int32(p.HashRanges[i])), End: gproto.Int32(int32(p.HashRanges[i+1]))})
		}
	}
	if p.AllowOutOfOrderDelivery {
		m.AllowOutOfOrderDelivery = gproto.Bool(true)
	}
	return m
}

// consumerErr adds op to an engine error and converts broker errors to
// *ServerError and the engine's *Error to this package's (wrapErr).
func consumerErr(op string, err error) error { return wrapErr(op, err) }

// opContext bounds a background operation by the client's operation
// timeout.
func (c *client) opContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), c.opts.OperationTimeout)
}

// seekTimeout bounds a Seek: the seek and the new subscription.
func (c *client) seekTimeout() time.Duration { return 2 * c.opts.OperationTimeout }
