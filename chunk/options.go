package chunk

import "time"

// Defaults of Options.
const (
	// DefaultMaxPendingMessages is the default Options.MaxPendingMessages:
	// 100, the official Go client's MaxPendingChunkedMessage default.
	DefaultMaxPendingMessages = 100
	// DefaultMaxPendingBytes is the default Options.MaxPendingBytes: 256 MiB.
	DefaultMaxPendingBytes int64 = 256 << 20
	// DefaultExpireAfter is the default Options.ExpireAfter: 60 s, the
	// official clients' expiryTimeOfIncompleteChunk.
	DefaultExpireAfter = 60 * time.Second
)

// Options are an Assembler's limits. The zero value selects every default.
type Options struct {
	// MaxPendingMessages bounds how many incomplete messages are buffered.
	// When chunk 0 of one more arrives, the oldest is evicted and reported
	// (ErrEvicted). Values <= 0 select DefaultMaxPendingMessages.
	MaxPendingMessages int
	// MaxPendingBytes bounds the sum of the buffers of all incomplete
	// messages; a message reserves its whole total_chunk_msg_size when its
	// chunk 0 arrives. If a new message does not fit, the oldest incomplete
	// messages are evicted until it does (ErrEvicted); a message larger than
	// the whole budget is refused before anything is allocated
	// (ErrOverBudget). Completed messages belong to the caller and do not
	// count. Values <= 0 select DefaultMaxPendingBytes.
	MaxPendingBytes int64
	// MaxMessageSize is the largest total_chunk_msg_size accepted, checked
	// before allocating; larger messages are refused (ErrTooLarge). It also
	// applies to single-chunk messages, which are never pending. Values <= 0
	// select MaxPendingBytes (after its own default), so by default any
	// message that fits the budget is accepted.
	MaxMessageSize int64
	// ExpireAfter is how long an incomplete message may wait for its
	// remaining chunks, counted from its chunk 0. Expired messages are
	// discarded (ErrExpired) by the next Add or Expire. Zero selects
	// DefaultExpireAfter; a negative value disables expiry.
	ExpireAfter time.Duration
	// Now is the clock; nil selects time.Now. Tests inject a fake clock.
	Now func() time.Time
	// NewBuffer, when set, returns the buffer a message of several chunks
	// is assembled in: n bytes long (n is total_chunk_msg_size, already
	// checked against the limits), whose contents the chunks overwrite.
	// A consumer can use it to map the pages in ahead of the copies. nil
	// selects make([]byte, n).
	NewBuffer func(n int) []byte
}

// withDefaults returns o with every unset field replaced by its default.
func (o Options) withDefaults() Options {
	if o.MaxPendingMessages <= 0 {
		o.MaxPendingMessages = DefaultMaxPendingMessages
	}
	if o.MaxPendingBytes <= 0 {
		o.MaxPendingBytes = DefaultMaxPendingBytes
	}
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = o.MaxPendingBytes
	}
	if o.ExpireAfter == 0 {
		o.ExpireAfter = DefaultExpireAfter
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}
