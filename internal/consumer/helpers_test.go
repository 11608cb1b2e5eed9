package consumer

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/consumer/consumertest"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

var seq atomic.Int64

func testLogger() *slog.Logger {
	if os.Getenv("PULSARGO_DEBUG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

func newTopic(t *testing.T) string {
	return fmt.Sprintf("persistent://public/default/engine-%d", seq.Add(1))
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// env is a broker, a connection pool to it and helpers.
type env struct {
	t    *testing.T
	b    *brokerstub.Broker
	pool *conn.Pool
}

func newEnv(t *testing.T, opts ...brokerstub.Options) *env {
	var o brokerstub.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Logger == nil {
		o.Logger = testLogger()
	}
	// In-memory connections only, so that tests run in synctest bubbles.
	o.NoListener = true
	b := brokerstub.RunT(t, o)
	pool := conn.NewPool(conn.Options{Dial: b.Dial, Logger: testLogger()})
	t.Cleanup(pool.Close)
	return &env{t: t, b: b, pool: pool}
}

var consumerIDs atomic.Uint64

// engine starts an engine on topic with the given options adjusted by fn.
func (v *env) engine(topic, sub string, fn func(*Options[*Message])) (*Engine[*Message], chan *Message) {
	v.t.Helper()
	out := make(chan *Message)
	o := Options[*Message]{
		Topic: topic, Partition: -1, Subscription: sub,
		InitialPosition: proto.CommandSubscribe_Earliest,
		Connect:         func(ctx context.Context) (*conn.Conn, error) { return v.pool.Get(ctx, v.b.Addr()) },
		ConsumerID:      consumerIDs.Add(1),
		Out:             out,
		Wrap:            func(m *Message) *Message { return m },
		Logger:          testLogger(),
		AckGroupTime:    -1,
		BackoffInitial:  10 * time.Millisecond,
		BackoffMax:      100 * time.Millisecond,
	}
	if fn != nil {
		fn(&o)
	}
	e := New(o)
	if err := e.Start(ctxT(v.t)); err != nil {
		v.t.Fatalf("start: %v", err)
	}
	v.t.Cleanup(e.Close)
	return e, out
}

func (v *env) producer(topic string) *consumertest.Producer {
	v.t.Helper()
	p, err := consumertest.New(ctxT(v.t), v.b.Dial, v.b.Addr(), topic, -1)
	if err != nil {
		v.t.Fatalf("producer: %v", err)
	}
	v.t.Cleanup(p.Close)
	return p
}

func recv(t *testing.T, ch <-chan *Message) *Message {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message within 10 s")
		return nil
	}
}

func recvN(t *testing.T, ch <-chan *Message, n int) []*Message {
	t.Helper()
	out := make([]*Message, n)
	for i := range out {
		out[i] = recv(t, ch)
	}
	return out
}

func expectNone(t *testing.T, ch <-chan *Message, d time.Duration) {
	t.Helper()
	select {
	case m := <-ch:
		t.Fatalf("unexpected message %v %q", m.ID, trim(m.Payload))
	case <-time.After(d):
	}
}

func trim(b []byte) string {
	if len(b) > 20 {
		return string(b[:20]) + "..."
	}
	return string(b)
}

func payloads(ms []*Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = trim(m.Payload)
	}
	return out
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) + seed
	}
	return b
}

// Thin wrappers over consumertest's shared checks.
func noise(n int, seed uint64) []byte          { return consumertest.Noise(n, seed) }
func sameBytes(t *testing.T, got, want []byte) { t.Helper(); consumertest.SameBytes(t, got, want) }
func ackedThrough(last messageid.MessageID) func(brokerstub.CursorState) bool {
	return consumertest.AckedThrough(last)
}

// waitCursor waits until the subscription's cursor satisfies ok.
func (v *env) waitCursor(topic, sub string, ok func(brokerstub.CursorState) bool) brokerstub.CursorState {
	v.t.Helper()
	return consumertest.WaitCursor(v.t, v.b, topic, sub, ok)
}
