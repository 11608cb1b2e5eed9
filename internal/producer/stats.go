package producer

import (
	"sync/atomic"
)

// counters are the atomic counters behind Stats.
type counters struct {
	messages, bytes, chunks, entries, failed, reconnects atomic.Uint64
	pendingBytes, pendingChunks                          atomic.Int64
}

// Stats are one partition's counters. pulsar.ProducerStats documents them
// and sums them over the partitions: it has the same fields, so that it
// converts a Stats as it is (the compiler keeps the two in step).
type Stats struct {
	MessagesSent, BytesSent, ChunksSent, EntriesSent, Errors, Reconnects uint64
	PendingMessages, PendingBytes, PendingChunks                         int64
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
		PendingChunks:   p.stats.pendingChunks.Load(),
	}
}
