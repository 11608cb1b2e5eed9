package producer

import "sync/atomic"

// Stats are a producer's counters since it was created.
type Stats struct {
	// MessagesSent counts messages the broker acknowledged.
	MessagesSent uint64
	// BytesSent counts their payload bytes, before compression.
	BytesSent uint64
	// ChunksSent counts acknowledged chunks of chunked messages.
	ChunksSent uint64
	// EntriesSent counts acknowledged entries: batches, messages sent
	// alone and chunked messages (one each).
	EntriesSent uint64
	// Errors counts messages that failed (timeout, broker error, closed,
	// refused).
	Errors uint64
	// Reconnects counts re-attachments after the broker or the connection
	// dropped the producer.
	Reconnects uint64
	// PendingMessages is the number of messages accepted and not yet
	// acknowledged or failed.
	PendingMessages int64
	// PendingBytes is the memory they hold (compressed payloads).
	PendingBytes int64
}

// counters are the atomic counters behind Stats.
type counters struct {
	messages, bytes, chunks, entries, failed, reconnects atomic.Uint64
	pendingBytes                                         atomic.Int64
}

// Stats returns a snapshot of the producer's counters.
func (p *Producer) Stats() Stats {
	return Stats{
		MessagesSent:    p.stats.messages.Load(),
		BytesSent:       p.stats.bytes.Load(),
		ChunksSent:      p.stats.chunks.Load(),
		EntriesSent:     p.stats.entries.Load(),
		Errors:          p.stats.failed.Load(),
		Reconnects:      p.stats.reconnects.Load(),
		PendingMessages: int64(len(p.permits)),
		PendingBytes:    p.stats.pendingBytes.Load(),
	}
}
