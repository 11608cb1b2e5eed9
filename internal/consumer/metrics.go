package consumer

import (
	"time"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/messageid"
)

// metricsNow is the time a message is received for the processing-time
// metric: the clock's now with metrics, the zero time (and no clock read)
// without.
func (e *Engine[T]) metricsNow() time.Time {
	if !e.o.Metrics.On() {
		return time.Time{}
	}
	return e.o.Clock.Now()
}

// metricReceived counts a message received from the broker (its
// uncompressed payload bytes), queued or diverted.
func (e *Engine[T]) metricReceived(m *Message) {
	e.o.Metrics.Add(api.MetricMessagesReceived, 1)
	e.o.Metrics.Add(api.MetricBytesReceived, float64(len(m.Payload)))
}

// metricPrefetched moves the receiver-queue gauges by one message, up
// (+1, queued) or down (-1, handed out or dropped).
func (e *Engine[T]) metricPrefetched(m *Message, sign float64) {
	e.o.Metrics.Add(api.MetricPrefetchedMessages, sign)
	e.o.Metrics.Add(api.MetricPrefetchedBytes, sign*float64(len(m.Payload)))
}

// receivedAt returns when the message id names was received, the zero
// time without metrics or when it is not tracked. Called on the loop.
func (e *Engine[T]) receivedAt(id messageid.MessageID) time.Time {
	if !e.o.Metrics.On() {
		return time.Time{}
	}
	if t := e.tracked[posOf(messageid.FirstChunk(id))]; t != nil {
		return t.at
	}
	return time.Time{}
}

// metricAcked counts an acknowledgment and, when the message was received
// here (at), its processing time.
func (e *Engine[T]) metricAcked(at time.Time) {
	e.o.Metrics.Add(api.MetricAcks, 1)
	if !at.IsZero() {
		e.o.Metrics.Observe(api.MetricProcessingTime, e.o.Clock.Now().Sub(at).Seconds())
	}
}

// metricStarted counts the partition as active (a reader's too: the
// official client's reader is a consumer). Called by Start before the
// loop runs.
func (e *Engine[T]) metricStarted() {
	e.started = true
	e.o.Metrics.Add(api.MetricConsumersPartitions, 1)
}

// metricClosed is metricStarted undone, by Close.
func (e *Engine[T]) metricClosed() {
	if e.started {
		e.o.Metrics.Add(api.MetricConsumersPartitions, -1)
	}
}
