package pulsar

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/lookup"
)

// commandLog records the commands a stub receives.
type commandLog struct {
	mu  sync.Mutex
	evs []brokerstub.Event
}

func (l *commandLog) record(ev brokerstub.Event) brokerstub.Action {
	if ev.Dir == brokerstub.Inbound {
		l.mu.Lock()
		l.evs = append(l.evs, ev)
		l.mu.Unlock()
	}
	return brokerstub.Action{}
}

func (l *commandLog) of(typ brokerstub.Command) []brokerstub.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []brokerstub.Event
	for _, ev := range l.evs {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// The lookup options and the description reach the broker as the official
// client sends them: advertised_listener_name and properties in LOOKUP,
// "<version>-<description>" in CONNECT.
func TestClientOptionsOnTheWire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		var l commandLog
		b.Intercept(l.record)
		c, err := NewClient(ClientOptions{URL: b.URL(), Dialer: b.Dial, Logger: clientLogger(),
			ListenerName: "internal", LookupProperties: map[string]string{"region": "eu", "az": "2"}, Description: "forked"})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		p, err := c.CreateProducer(ProducerOptions{Topic: "options-on-the-wire"})
		if err != nil {
			t.Fatal(err)
		}
		p.Close()
		lookups := l.of("LOOKUP")
		if len(lookups) == 0 {
			t.Fatal("no LOOKUP")
		}
		for _, want := range []string{`advertised_listener_name:"internal"`, `properties:{key:"az" value:"2"}`, `properties:{key:"region" value:"eu"}`} {
			if d := strings.ReplaceAll(lookups[0].Detail, "  ", " "); !strings.Contains(d, want) {
				t.Errorf("LOOKUP %s lacks %s", lookups[0].Detail, want)
			}
		}
		connects := l.of("CONNECT")
		if len(connects) == 0 || !strings.Contains(connects[0].Detail, `client_version:"pulsargo-forked"`) {
			t.Errorf("CONNECT %v does not carry the description", connects)
		}
	})
}

// MaxConnectionsPerBroker spreads producers over that many connections.
func TestMaxConnectionsPerBroker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, n := range []int{1, 3} {
			b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
			var l commandLog
			b.Intercept(l.record)
			c, err := NewClient(ClientOptions{URL: b.URL(), Dialer: b.Dial, Logger: clientLogger(), MaxConnectionsPerBroker: n})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 6 {
				p, err := c.CreateProducer(ProducerOptions{Topic: "spread"})
				if err != nil {
					t.Fatal(i, err)
				}
				defer p.Close()
			}
			conns := map[uint64]bool{}
			for _, ev := range l.of("PRODUCER") {
				conns[ev.Conn] = true
			}
			if len(conns) != n {
				t.Errorf("MaxConnectionsPerBroker %d: producers on %d connections", n, len(conns))
			}
			c.Close()
		}
	})
}

// A connection without producers, consumers or requests closes after
// ConnectionMaxIdleTime; one in use stays.
func TestConnectionMaxIdleTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c, err := newClient(ClientOptions{URL: b.URL(), Dialer: b.Dial, Logger: clientLogger(), ConnectionMaxIdleTime: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		p, err := c.CreateProducer(ProducerOptions{Topic: "idle"})
		if err != nil {
			t.Fatal(err)
		}
		cn, err := c.pool.Get(context.Background(), c.lookup.(*lookup.Binary).Addr)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Minute) // bubble time
		synctest.Wait()
		if cn.Err() != nil {
			t.Fatal("a connection with a producer was closed as idle")
		}
		p.Close()
		time.Sleep(59 * time.Second)
		synctest.Wait()
		if cn.Err() != nil {
			t.Fatal("closed before ConnectionMaxIdleTime")
		}
		time.Sleep(31 * time.Second)
		synctest.Wait()
		if !errors.Is(cn.Err(), ErrConnectionClosed) {
			t.Fatalf("idle connection still open after 1.5 x ConnectionMaxIdleTime: %v", cn.Err())
		}
		// The client dials again when it needs the broker.
		p, err = c.CreateProducer(ProducerOptions{Topic: "idle"})
		if err != nil {
			t.Fatal(err)
		}
		p.Close()
	})
}

func TestClientOptionsValidation(t *testing.T) {
	for _, o := range []ClientOptions{
		{},
		{URL: "http//nope"},
		{URL: "pulsar://localhost:6650", ConnectionMaxIdleTime: 59 * time.Second},
	} {
		c, err := NewClient(o)
		if c != nil || err == nil {
			t.Fatalf("NewClient(%+v) = %v, %v; want nil and an error", o, c, err)
		}
		// A bare *Error, as the official client's: code asserts its type.
		if pe, ok := err.(*Error); !ok || pe.Result() != InvalidConfiguration || !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("NewClient(%+v): %v (%T) is not an InvalidConfiguration *Error", o, err, err)
		}
	}
	for _, idle := range []time.Duration{-1, 0, time.Minute} {
		c, err := NewClient(ClientOptions{URL: "pulsar://localhost:6650", ConnectionMaxIdleTime: idle})
		if err != nil {
			t.Fatalf("ConnectionMaxIdleTime %v: %v", idle, err)
		}
		c.Close()
	}
}

// Missing options give the official client's bare *Error and Result, and
// still match ErrInvalidOptions.
func TestMissingOptionsAsOfficial(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c, err := NewClient(ClientOptions{URL: b.URL(), Dialer: b.Dial, Logger: clientLogger()})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, errNoSub := c.Subscribe(ConsumerOptions{Topic: "t"})
		_, errNoTopic := c.Subscribe(ConsumerOptions{SubscriptionName: "s"})
		_, errProducer := c.CreateProducer(ProducerOptions{})
		_, errReader := c.CreateReader(ReaderOptions{StartMessageID: EarliestMessageID()})
		for _, tc := range []struct {
			err  error
			want Result
		}{{errNoSub, SubscriptionNotFound}, {errNoTopic, TopicNotFound}, {errProducer, InvalidTopicName}, {errReader, InvalidConfiguration}} {
			e, ok := tc.err.(*Error)
			if !ok || e.Result() != tc.want || !errors.Is(tc.err, ErrInvalidOptions) {
				t.Errorf("%v (%T): want a bare *Error with Result %d", tc.err, tc.err, tc.want)
			}
		}
	})
}
