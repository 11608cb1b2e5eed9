package brokerstub

import (
	"sync"
	"time"
)

// Publish rate limits, as Pulsar's PublishRateLimiterImpl: every SEND is
// charged, its messages and its metadata and payload bytes, to the broker's
// and its topic's publish buckets (RateLimits, policy publishRate). Nothing
// is refused: when a bucket runs out, the connection that sent it stops
// reading (Pulsar turns autoread off) until the bucket holds a token again,
// on Options.Clock; its SENDs, and its other commands, wait in the socket.
// The SENDs already read go on.

// pubHold counts the reasons a connection's reads are paused for the
// publish rates. Safe for concurrent use; the zero value is ready.
type pubHold struct {
	mu    sync.Mutex
	n     int
	clear chan struct{} // while the read loop waits: closed when n is 0
}

func (h *pubHold) add() {
	h.mu.Lock()
	h.n++
	h.mu.Unlock()
}

func (h *pubHold) release() {
	h.mu.Lock()
	if h.n--; h.n <= 0 {
		h.n = 0
		if h.clear != nil {
			close(h.clear)
			h.clear = nil
		}
	}
	h.mu.Unlock()
}

// holding reports whether the reads are paused.
func (h *pubHold) holding() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n > 0
}

// wait returns once nothing holds the reads (true), or when done closes
// first (false). One goroutine (the read loop) waits.
func (h *pubHold) wait(done <-chan struct{}) bool {
	h.mu.Lock()
	if h.n == 0 {
		h.mu.Unlock()
		return true
	}
	if h.clear == nil {
		h.clear = make(chan struct{})
	}
	clear := h.clear
	h.mu.Unlock()
	select {
	case <-clear:
		return true
	case <-done:
		return false
	}
}

// chargePublish charges a SEND of msgs messages and size bytes to t's
// publish rates, pausing the connection's reads when one runs out.
// Connection goroutine.
func (c *conn) chargePublish(t *topic, msgs int32, size int) {
	t.rates.publishedMsgs.Add(int64(max(msgs, 1)))
	t.rates.publishedBytes.Add(int64(size))
	br, tr := c.b.brokerRates().publish, t.rates.publish.Load()
	if br == nil && tr == nil {
		return
	}
	now := c.b.opts.Clock.Now()
	for _, p := range []*ratePair{br, tr} {
		p.consume(int64(max(msgs, 1)), int64(size), now)
		if w := p.wait(now); w > 0 {
			c.pubHold.add()
			c.unthrottleAfter(p, w)
		}
	}
}

// unthrottleAfter releases one hold of the reads once p holds a token
// again, checking after w and again as long as it does not.
func (c *conn) unthrottleAfter(p *ratePair, w time.Duration) {
	c.b.opts.Clock.AfterFunc(w, func() {
		if w := p.wait(c.b.opts.Clock.Now()); w > 0 {
			c.unthrottleAfter(p, w)
			return
		}
		// The client was not silent: the broker did not read it. The
		// keep-alive counts from here (conn.keepAlive).
		c.lastRead.Store(time.Now().UnixNano())
		c.pubHold.release()
	})
}
