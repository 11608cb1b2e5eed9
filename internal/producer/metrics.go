package producer

import (
	"errors"
	"time"

	"github.com/pulsargo/sdk/internal/api"
)

// metricsNow is the time for a latency metric: the clock's now with
// metrics, the zero time (and no clock read) without.
func (p *Producer) metricsNow() time.Time {
	if !p.opts.Metrics.On() {
		return time.Time{}
	}
	return p.opts.Clock.Now()
}

// pendingChanged moves the pending counters by msgs messages and bytes
// bytes (the bytes held against the memory limit: a compressed message
// counts its compressed size once it is compressed).
func (p *Producer) pendingChanged(msgs int, bytes int64) {
	p.stats.pendingBytes.Add(bytes)
	if msgs != 0 {
		p.opts.Metrics.Add(api.MetricMessagesPending, float64(msgs))
	}
	p.opts.Metrics.Add(api.MetricBytesPending, float64(bytes))
}

// metricFinished reports an entry acknowledged (its messages, their
// uncompressed bytes and Send-to-receipt latencies, the entry's
// write-to-receipt latency) or failed. Called with p.mu held.
func (p *Producer) metricFinished(e *entry, err error) {
	m := p.opts.Metrics
	if !m.On() {
		return
	}
	if err != nil {
		p.metricFailed(len(e.msgs), err)
		return
	}
	now := p.opts.Clock.Now()
	if !e.written.IsZero() {
		m.Observe(api.MetricPublishRPCLatency, now.Sub(e.written).Seconds())
	}
	for _, pm := range e.msgs {
		m.Add(api.MetricMessagesPublished, 1)
		m.Add(api.MetricBytesPublished, float64(pm.size))
		if !pm.at.IsZero() {
			m.Observe(api.MetricPublishLatency, now.Sub(pm.at).Seconds())
		}
	}
}

// metricFailed counts n messages failed with err, under the two errors
// the official client counts: the send timeout and a message too large.
func (p *Producer) metricFailed(n int, err error) {
	switch {
	case errors.Is(err, api.ErrSendTimeout):
		p.opts.Metrics.Add(api.MetricPublishErrorsTimeout, float64(n))
	case errors.Is(err, api.ErrMessageTooLarge):
		p.opts.Metrics.Add(api.MetricPublishErrorsMsgTooLarge, float64(n))
	}
}
