package pulsar

import (
	"math/rand/v2"
	"sync"
	"time"
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
func murmur3Hash32(s string) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	var h uint32
	n := len(s)
	i := 0
	for ; i+4 <= n; i += 4 {
		k := uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
		k *= c1
		k = k<<15 | k>>17
		k *= c2
		h ^= k
		h = h<<13 | h>>19
		h = h*5 + 0xe6546b64
	}
	var k uint32
	switch n - i {
	case 3:
		k ^= uint32(s[i+2]) << 16
		fallthrough
	case 2:
		k ^= uint32(s[i+1]) << 8
		fallthrough
	case 1:
		k ^= uint32(s[i])
		k *= c1
		k = k<<15 | k>>17
		k *= c2
		h ^= k
	}
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h & 0x7fffffff
}

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
