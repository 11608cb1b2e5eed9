package pulsar

import "github.com/pulsargo/sdk/internal/api"

// ProducerStats are a producer's counters since it was created, summed over
// its partitions. Read them with Producer.Stats. (Defined in internal/api:
// each partition's engine returns the same type.)
type ProducerStats = api.ProducerStats

// addStats adds the counters of o to s.
func addStats(s *ProducerStats, o ProducerStats) {
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
