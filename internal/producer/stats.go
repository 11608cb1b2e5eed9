package producer

import (
	"sync/atomic"

	"github.com/pulsargo/sdk/internal/api"
)

// counters are the atomic counters behind Stats.
type counters struct {
	messages, bytes, chunks, entries, failed, reconnects atomic.Uint64
	pendingBytes, pendingChunks                          atomic.Int64
}

// Stats returns a snapshot of the producer's counters.
func (p *Producer) Stats() api.ProducerStats {
	return api.ProducerStats{
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
