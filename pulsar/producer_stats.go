package pulsar

import "github.com/pulsargo/sdk/internal/producer"

// ProducerStats are a producer's counters since it was created, summed over
// its partitions. Read them with Producer.Stats; all start at zero.
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
	// ClientOptions.MemoryLimitBytes: compressed payloads and batches, the
	// chunks in flight of an uncompressed chunked message.
	PendingBytes int64
	// PendingChunks is the number of chunks of pending chunked messages
	// not yet acknowledged: with ChunksSent, the progress of a large Send
	// ("ChunksSent-before of ChunksSent-before+PendingChunks").
	PendingChunks int64
}

// addStats adds the counters of a partition's engine to s.
func addStats(s *ProducerStats, st producer.Stats) {
	o := ProducerStats(st)
	s.MessagesSent += o.MessagesSent
	s.BytesSent += o.BytesSent
	s.ChunksSent += o.ChunksSent
	s.EntriesSent += o.EntriesSent
	s.Errors += o.Errors
	s.Reconnects += o.Reconnects
	s.PendingMessages += o.PendingMessages
	s.PendingBytes += o.PendingBytes
	s.PendingChunks += o.PendingChunks
}
