package pulsar

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar/log"
)

// entries is an application's own log.Logger (not slog): it records
// "LEVEL message k=v ..." lines.
type entries struct {
	mu    *sync.Mutex
	lines *[]string
	f     log.Fields
}

func newEntries() *entries { return &entries{mu: &sync.Mutex{}, lines: &[]string{}} }

func (e *entries) with(f log.Fields) *entries {
	m := log.Fields{}
	for k, v := range e.f {
		m[k] = v
	}
	for k, v := range f {
		m[k] = v
	}
	return &entries{mu: e.mu, lines: e.lines, f: m}
}

func (e *entries) add(level string, args ...interface{}) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", level, fmt.Sprint(args...))
	for k, v := range e.f {
		fmt.Fprintf(&b, " %s=%v", k, v)
	}
	e.mu.Lock()
	*e.lines = append(*e.lines, b.String())
	e.mu.Unlock()
}

func (e *entries) find(prefix string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, l := range *e.lines {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

func (e *entries) SubLogger(f log.Fields) log.Logger           { return e.with(f) }
func (e *entries) WithFields(f log.Fields) log.Entry           { return e.with(f) }
func (e *entries) WithField(k string, v interface{}) log.Entry { return e.with(log.Fields{k: v}) }
func (e *entries) WithError(err error) log.Entry               { return e.with(log.Fields{"error": err}) }
func (e *entries) Debug(a ...interface{})                      { e.add("DEBUG", a...) }
func (e *entries) Info(a ...interface{})                       { e.add("INFO", a...) }
func (e *entries) Warn(a ...interface{})                       { e.add("WARN", a...) }
func (e *entries) Error(a ...interface{})                      { e.add("ERROR", a...) }
func (e *entries) Debugf(f string, a ...interface{})           { e.add("DEBUG", fmt.Sprintf(f, a...)) }
func (e *entries) Infof(f string, a ...interface{})            { e.add("INFO", fmt.Sprintf(f, a...)) }
func (e *entries) Warnf(f string, a ...interface{})            { e.add("WARN", fmt.Sprintf(f, a...)) }
func (e *entries) Errorf(f string, a ...interface{})           { e.add("ERROR", fmt.Sprintf(f, a...)) }

// The client logs through ClientOptions.Logger, whatever implements it:
// here a producer giving up on its broker (MaxReconnectToBroker) warns.
func TestClientLogsToItsLogger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		var on atomic.Bool
		var producers atomic.Int32
		refuse(b, "PRODUCER", &on, &producers)
		logs := newEntries()
		c, err := NewClient(ClientOptions{URL: b.URL(), Dialer: b.Dial, Logger: logs})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		once := uint(1)
		p, err := c.CreateProducer(ProducerOptions{Topic: "logged", MaxReconnectToBroker: &once})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		on.Store(true)
		if err := b.Unload(topicFull("logged")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		l := logs.find("WARN producer gave up re-attaching")
		if l == "" || !strings.Contains(l, "attempts=1") || !strings.Contains(l, "ServiceNotReady") {
			t.Fatalf("no warning of the producer giving up in the application's logger: %q", *logs.lines)
		}
	})
}
