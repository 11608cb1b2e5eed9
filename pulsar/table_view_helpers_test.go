package pulsar

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// logRecorder is a slog handler that keeps the messages logged at Warn
// and above.
type logRecorder struct {
	mu    sync.Mutex
	warns []string
}

func (r *logRecorder) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.warns = append(r.warns, rec.Message)
	r.mu.Unlock()
	return nil
}
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *logRecorder) WithGroup(string) slog.Handler      { return r }

func (r *logRecorder) count(msg string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, w := range r.warns {
		if w == msg {
			n++
		}
	}
	return n
}

// tvEvent is one call of a table view listener.
type tvEvent struct {
	key   string
	value any
}

// tvListener registers a listener on tv that sends each call to the
// channel returned: first one per entry of the snapshot, then the updates.
func tvListener(t *testing.T, tv TableView) <-chan tvEvent {
	t.Helper()
	ch := make(chan tvEvent, 100)
	require.NoError(t, tv.ForEachAndListen(func(k string, v any) error {
		ch <- tvEvent{k, v}
		return nil
	}))
	return ch
}

// nextEvent returns the next listener call, failing after 10 s of bubble
// time.
func nextEvent(t *testing.T, ch <-chan tvEvent) tvEvent {
	t.Helper()
	select {
	case ev := <-ch:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no table view update")
		return tvEvent{}
	}
}

// sendKeyed sends key=payload through p (an empty payload is a tombstone;
// an empty key sends none).
func sendKeyed(t *testing.T, p Producer, key string, msg *ProducerMessage) {
	t.Helper()
	msg.Key = key
	_, err := p.Send(context.Background(), msg)
	require.NoError(t, err)
}
