package pulsar

import "github.com/pulsargo/sdk/internal/producer"

// ProducerStats are a producer's counters since it was created, summed over
// its partitions. Read them with Producer.Stats.
type ProducerStats struct {
	// MessagesSent counts messages the broker acknowledged.
	MessagesSent uint64
	// BytesSent counts their payload bytes, before compression.
	BytesSent uint64
	// ChunksSent counts acknowledged chunks of chunked messages.
	ChunksSent uint64
	// EntriesSent counts acknowledged entries: batches, messages sent alone
	// and chunked messages (one each).
	EntriesSent uint64
	// Errors counts messages that failed: send timeout, broker error,
	// producer closed, queue full, too large.
	Errors uint64
	// Reconnects counts re-attachments after the broker (unload) or the
	// connection dropped the producer.
	Reconnects uint64
	// PendingMessages is the number of messages accepted by Send or
	// SendAsync and not yet acknowledged or failed (a chunked message
	// counts once).
	PendingMessages int64
	// PendingBytes is the memory they hold against
	// ClientOptions.MemoryLimitBytes: compressed payloads and batches.
	PendingBytes int64
}

func (s *ProducerStats) add(o producer.Stats) {
	s.MessagesSent += o.MessagesSent
	s.BytesSent += o.BytesSent
	s.ChunksSent += o.ChunksSent
	s.EntriesSent += o.EntriesSent
	s.Errors += o.Errors
	s.Reconnects += o.Reconnects
	s.PendingMessages += o.PendingMessages
	s.PendingBytes += o.PendingBytes
}
