package pulsar

import "context"

// producerMemory adapts the client's memoryLimit to the producer engine's
// Memory interface.
type producerMemory struct{ m *memoryLimit }

func (a producerMemory) Reserve(ctx context.Context, n int64) error { return a.m.reserve(ctx, n) }
func (a producerMemory) TryReserve(n int64) bool                    { return a.m.tryReserve(n) }
func (a producerMemory) Release(n int64)                            { a.m.release(n) }
func (a producerMemory) Limit() int64                               { return a.m.limit }

// Add reserves n bytes even past the limit: the few bytes by which a
// compressed payload, or a batch's framing, exceeds what was reserved for
// the messages.
func (a producerMemory) Add(n int64) { a.m.add(n) }
