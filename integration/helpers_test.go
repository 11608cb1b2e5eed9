package integration

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsar/log"
	"github.com/sirupsen/logrus"

	"github.com/pulsargo/sdk/brokerstub"
	sdklog "github.com/pulsargo/sdk/pulsar/log"
)

var topicSeq atomic.Int64

// newTopic returns a topic name unique to the test binary run.
func newTopic(t *testing.T) string {
	name := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	return fmt.Sprintf("persistent://public/default/%s-%d", name, topicSeq.Add(1))
}

// stubLogger returns a logger for the stub: debug output when
// PULSARGO_DEBUG is set, else nothing.
func stubLogger() *slog.Logger {
	if os.Getenv("PULSARGO_DEBUG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// startStub starts an in-process broker for the test.
func startStub(t *testing.T, opts ...brokerstub.Options) *brokerstub.Broker {
	t.Helper()
	var o brokerstub.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Logger == nil {
		o.Logger = stubLogger()
	}
	return brokerstub.RunT(t, o)
}

// officialClient connects the official Go client to url; its logs are
// discarded unless PULSARGO_DEBUG is set.
func officialClient(t *testing.T, url string) official.Client {
	t.Helper()
	c, err := official.NewClient(official.ClientOptions{
		URL:               url,
		OperationTimeout:  10 * time.Second,
		ConnectionTimeout: 5 * time.Second,
		Logger:            quietLogger(),
	})
	if err != nil {
		t.Fatalf("official client: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// quietLogger is the official client's logger: discarded unless
// PULSARGO_DEBUG is set.
// sdkLogger is stubLogger as pulsargo's client Logger.
func sdkLogger() sdklog.Logger { return sdklog.NewLoggerWithSlog(stubLogger()) }

func quietLogger() log.Logger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	if os.Getenv("PULSARGO_DEBUG") != "" {
		l.SetOutput(os.Stderr)
		l.SetLevel(logrus.DebugLevel)
	}
	return log.NewLoggerWithLogrus(l)
}

// ctxT returns a context that ends with the test or after 30 s.
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// receiveN receives n messages or fails the test.
func receiveN(t *testing.T, c official.Consumer, n int) []official.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	out := make([]official.Message, 0, n)
	for len(out) < n {
		m, err := c.Receive(ctx)
		if err != nil {
			t.Fatalf("received %d of %d: %v", len(out), n, err)
		}
		out = append(out, m)
	}
	return out
}

// expectNothing checks that the consumer receives nothing for a while.
func expectNothing(t *testing.T, c official.Consumer, wait time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if m, err := c.Receive(ctx); err == nil {
		t.Fatalf("unexpected message %s: %q", m.ID(), m.Payload())
	}
}
