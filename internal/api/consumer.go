package api

// ChunkPolicy says what happens to a chunked message a consumer gives up on
// (evicted by MaxPendingChunkedMessage or the byte budget, or expired).
// Package pulsar exports it as pulsar.ChunkPolicy; the consumer engine
// applies it.
type ChunkPolicy int

// Chunk policies.
const (
	// ChunkNack asks the broker to redeliver its chunks (default): no data
	// is lost.
	ChunkNack ChunkPolicy = iota
	// ChunkAck acknowledges its chunks: the message is dropped, as the
	// official clients do silently.
	ChunkAck
)
