package pulsar

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pulsargo/sdk/internal/murmur3"
)

// javaStringHash is the official Go client's JavaStringHash: Java's
// String.hashCode over the key's bytes, as an unsigned 32-bit value. Keys
// route to the same partitions as with that client.
func javaStringHash(s string) uint32 {
	var h uint32
	for i := 0; i < len(s); i++ {
		h = 31*h + uint32(s[i])
	}
	return h
}

// murmur3Hash32 is Murmur3 32-bit (x86, seed 0) of the key's bytes with
// the sign bit cleared, as the Pulsar clients compute Murmur3_32Hash.
func murmur3Hash32(s string) uint32 { return murmur3.Sum32([]byte(s), 0) & 0x7fffffff }

// hashOf returns the hash function of a HashingScheme.
func hashOf(s HashingScheme) func(string) uint32 {
	if s == Murmur3_32Hash {
		return murmur3Hash32
	}
	return javaStringHash
}

// topicMetadata is the TopicMetadata given to a MessageRouter.
type topicMetadata struct{ n uint32 }

func (t topicMetadata) NumPartitions() uint32 { return t.n }

// NewDefaultRouter returns the official client's default router, which
// producers use when ProducerOptions.MessageRouter is nil: a message with
// an ordering key, else a key, goes to hashFunc(key) mod numPartitions;
// the others go round robin. With batching on (disableBatching false) the
// router stays on one partition until maxBatchingMessages messages,
// maxBatchingSize bytes or maxBatchingDelay have gone to it (the clock is
// read every maxBatchingMessages/10 messages), so that batches fill; the
// message that moves it on is the first of the next partition's batch, so
// that its batches match the producer's. It is safe for concurrent use; it
// starts at a random partition.
func NewDefaultRouter(hashFunc func(string) uint32, maxBatchingMessages uint, maxBatchingSize uint,
	maxBatchingDelay time.Duration, disableBatching bool) func(*ProducerMessage, uint32) int {
	var (
		cursor    atomic.Uint32
		count     atomic.Uint32
		size      atomic.Uint32
		lastBatch atomic.Int64 // unix nanos the current partition was picked
	)
	cursor.Store(rand.Uint32())
	lastBatch.Store(time.Now().UnixNano())
	clockEvery := uint32(maxBatchingMessages / 10)
	return func(msg *ProducerMessage, numPartitions uint32) int {
		if numPartitions <= 1 {
			return 0
		}
		if msg.OrderingKey != "" {
			return int(hashFunc(msg.OrderingKey) % numPartitions)
		}
		if msg.Key != "" {
			return int(hashFunc(msg.Key) % numPartitions)
		}
		if disableBatching {
			return int((cursor.Add(1) - 1) % numPartitions)
		}
		cur := cursor.Load()
		n := count.Add(1)
		bytes := size.Add(uint32(len(msg.Payload)))
		var now int64
		late := false
		if clockEvery == 0 || n%clockEvery == 0 {
			now = time.Now().UnixNano()
			late = now-lastBatch.Load() > maxBatchingDelay.Nanoseconds()
		}
		if n <= uint32(maxBatchingMessages) && bytes <= uint32(maxBatchingSize) && !late {
			return int(cur % numPartitions)
		}
		if cursor.CompareAndSwap(cur, cur+1) {
			// This message is the first of the next partition's batch (the
			// official router counts from the one after, so its batches
			// after the first hold one message more than the producer's,
			// which then waits for the batching delay).
			count.Store(1)
			size.Store(uint32(len(msg.Payload)))
			if now == 0 {
				now = time.Now().UnixNano()
			}
			lastBatch.Store(now)
		}
		return int((cur + 1) % numPartitions)
	}
}

// NewSinglePartitionRouter returns the official client's single-partition
// router: a message with a key goes to JavaStringHash(key) mod the
// partitions; all others go to one partition, picked at random on the
// first message. It is safe for concurrent use.
func NewSinglePartitionRouter() func(*ProducerMessage, TopicMetadata) int {
	var (
		once      sync.Once
		partition int
	)
	return func(msg *ProducerMessage, md TopicMetadata) int {
		n := md.NumPartitions()
		if n == 0 {
			return 0
		}
		if msg.Key != "" {
			return int(javaStringHash(msg.Key) % n)
		}
		once.Do(func() { partition = rand.IntN(int(n)) })
		return partition
	}
}

// defaultRouterFor is the router of a producer without MessageRouter:
// NewDefaultRouter with the producer's hashing scheme and batching options.
func defaultRouterFor(opts ProducerOptions) func(*ProducerMessage, TopicMetadata) int {
	r := NewDefaultRouter(hashOf(opts.HashingScheme), opts.BatchingMaxMessages, opts.BatchingMaxSize,
		opts.BatchingMaxPublishDelay, opts.DisableBatching)
	return func(m *ProducerMessage, md TopicMetadata) int { return r(m, md.NumPartitions()) }
}
