package pulsar

import (
	"math/rand/v2"
	"sync"
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

// topicMetadata is the TopicMetadata given to a MessageRouter.
type topicMetadata struct{ n uint32 }

func (t topicMetadata) NumPartitions() uint32 { return t.n }

// defaultRouter routes as the official Go client's default router: a
// message with an ordering key or a key goes to hash(key) mod partitions;
// others go round robin, staying on one partition for a batch's worth of
// messages (BatchingMaxMessages, BatchingMaxSize or BatchingMaxPublishDelay,
// whichever comes first) when batching is on.
type defaultRouter struct {
	hash     func(string) uint32
	batching bool
	maxMsgs  uint32
	maxBytes uint64
	maxDelay time.Duration
	now      func() time.Time

	mu     sync.Mutex
	cursor uint32
	count  uint32
	bytes  uint64
	since  time.Time
}

func newDefaultRouter(opts ProducerOptions) *defaultRouter {
	r := &defaultRouter{
		hash: javaStringHash, batching: !opts.DisableBatching,
		maxMsgs: uint32(opts.BatchingMaxMessages), maxBytes: uint64(opts.BatchingMaxSize),
		maxDelay: opts.BatchingMaxPublishDelay, now: time.Now,
		cursor: rand.Uint32(), // spread producers over partitions
	}
	if opts.HashingScheme == Murmur3_32Hash {
		r.hash = murmur3Hash32
	}
	r.since = r.now()
	return r
}

// route returns the partition of msg among n.
func (r *defaultRouter) route(msg *ProducerMessage, n uint32) int {
	if n <= 1 {
		return 0
	}
	if msg.OrderingKey != "" {
		return int(r.hash(msg.OrderingKey) % n)
	}
	if msg.Key != "" {
		return int(r.hash(msg.Key) % n)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.batching {
		p := r.cursor % n
		r.cursor++
		return int(p)
	}
	r.count++
	r.bytes += uint64(len(msg.Payload))
	if r.count > r.maxMsgs || r.bytes > r.maxBytes || r.now().Sub(r.since) > r.maxDelay {
		r.cursor++
		r.count, r.bytes, r.since = 1, uint64(len(msg.Payload)), r.now()
	}
	return int(r.cursor % n)
}
