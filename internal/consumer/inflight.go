package consumer

import (
	"sync/atomic"
	"time"

	"github.com/pulsargo/sdk/internal/wire"
)

// Backpressure on chunk frames between the connection's reader and the
// engine's loop. A chunk's payload is copied into the Assembler's buffer and
// its frame buffer goes back to the connection's pool for the next frame;
// if the reader ran far ahead of the loop, every chunk of a large message
// would sit in its own frame buffer at once and a chunked message would
// cost twice its size. So the reader waits while more than
// maxInflightChunkBytes of chunk payload is queued — never longer than
// maxInflightWait, so that a loop busy with a request on the same
// connection cannot deadlock with it.
const (
	maxInflightChunkBytes = 2 << 20
	maxInflightWait       = 200 * time.Millisecond
)

// inflight counts chunk payload bytes queued for the loop.
type inflight struct {
	bytes   atomic.Int64
	drained chan struct{} // signalled (non-blocking) when bytes drop
}

func newInflight() *inflight { return &inflight{drained: make(chan struct{}, 1)} }

// admit waits, boundedly, for room and counts a chunk frame's payload. It
// returns the bytes counted, 0 for frames that are not chunks.
func (in *inflight) admit(f *wire.Frame) int64 {
	if f == nil || f.Meta == nil || !isChunk(f.Meta) {
		return 0
	}
	if in.bytes.Load() > maxInflightChunkBytes {
		timer := time.NewTimer(maxInflightWait)
	wait:
		for in.bytes.Load() > maxInflightChunkBytes {
			select {
			case <-in.drained:
			case <-timer.C:
				break wait
			}
		}
		timer.Stop()
	}
	n := int64(len(f.Payload))
	in.bytes.Add(n)
	return n
}

// done uncounts n bytes once the loop is through with a chunk frame.
func (in *inflight) done(n int64) {
	if n == 0 {
		return
	}
	in.bytes.Add(-n)
	select {
	case in.drained <- struct{}{}:
	default:
	}
}
