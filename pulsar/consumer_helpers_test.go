package pulsar

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/consumer/consumertest"
	"github.com/pulsargo/sdk/messageid"
	"github.com/pulsargo/sdk/pulsar/log"
)

var csTopicSeq atomic.Int64

// csEnv is a stub and an SDK client on its in-memory connections.
type csEnv struct {
	t *testing.T
	b *brokerstub.Broker
	c Client
}

func csLogger() *slog.Logger {
	if os.Getenv("PULSARGO_DEBUG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// clientLogger is csLogger as the client's log.Logger.
func clientLogger() log.Logger {
	return log.NewLoggerWithSlog(csLogger())
}

func newCSEnv(t *testing.T, opts ...brokerstub.Options) *csEnv {
	t.Helper()
	var o brokerstub.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Logger == nil {
		o.Logger = csLogger()
	}
	// In-memory connections only, so that tests run in synctest bubbles.
	o.NoListener = true
	b := brokerstub.RunT(t, o)
	c, err := NewClient(ClientOptions{URL: b.URL(), Dialer: b.Dial, OperationTimeout: 5 * time.Second, Logger: clientLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &csEnv{t: t, b: b, c: c}
}

func csTopic() string {
	return fmt.Sprintf("persistent://public/default/cs-%d", csTopicSeq.Add(1))
}

func csCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// subscribe creates a consumer (earliest, acks sent at once) or fails.
func (v *csEnv) subscribe(opts ConsumerOptions) Consumer {
	v.t.Helper()
	if opts.SubscriptionName == "" {
		opts.SubscriptionName = "s"
	}
	opts.SubscriptionInitialPosition = SubscriptionPositionEarliest
	if opts.AckGroupingOptions == nil {
		opts.AckGroupingOptions = &AckGroupingOptions{}
	}
	c, err := v.c.Subscribe(opts)
	if err != nil {
		v.t.Fatalf("subscribe: %v", err)
	}
	v.t.Cleanup(c.Close)
	return c
}

// raw returns a raw producer on topic (partition index part, -1 for none).
func (v *csEnv) raw(topic string, part int32) *consumertest.Producer {
	v.t.Helper()
	p, err := consumertest.New(csCtx(v.t), v.b.Dial, v.b.Addr(), topic, part)
	if err != nil {
		v.t.Fatalf("raw producer: %v", err)
	}
	v.t.Cleanup(p.Close)
	return p
}

func csRecv(t *testing.T, c Consumer) Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m, err := c.Receive(ctx)
	if err != nil {
		t.Fatalf("receive: %v", err)
	}
	return m
}

func csRecvN(t *testing.T, c Consumer, n int) []Message {
	t.Helper()
	out := make([]Message, n)
	for i := range out {
		out[i] = csRecv(t, c)
	}
	return out
}

func csNone(t *testing.T, c Consumer, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if m, err := c.Receive(ctx); err == nil {
		t.Fatalf("unexpected message %v (%d bytes)", m.ID(), len(m.Payload()))
	}
}

// csNames returns payloads as strings, "BIG" for those over 1 KiB.
func csNames(ms []Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		if len(m.Payload()) > 1024 {
			out[i] = "BIG"
		} else {
			out[i] = string(m.Payload())
		}
	}
	return out
}

// allAcked is a cursor with everything through last acknowledged and
// nothing else pending: no chunk left unacknowledged.
func allAcked(last MessageID) func(brokerstub.CursorState) bool {
	l := messageid.LastChunk(last)
	return func(c brokerstub.CursorState) bool {
		return c.MarkDelete == brokerstub.Position{Ledger: l.LedgerID(), Entry: l.EntryID()} &&
			len(c.Ranges) == 0 && len(c.BatchAcks) == 0
	}
}

// Thin wrappers over consumertest's shared checks.
func csNoise(n int, seed uint64) []byte     { return consumertest.Noise(n, seed) }
func csSame(t *testing.T, got, want []byte) { t.Helper(); consumertest.SameBytes(t, got, want) }

// waitCursor waits until the subscription's cursor satisfies ok.
func (v *csEnv) waitCursor(topic, sub string, ok func(brokerstub.CursorState) bool) brokerstub.CursorState {
	v.t.Helper()
	return consumertest.WaitCursor(v.t, v.b, topic, sub, ok)
}
