package brokerstub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/pulsar"
)

// tickingClock advances by step on every Now, so that a scan on it sees
// time pass.
type tickingClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
	Clock
}

func (c *tickingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

// analyzeFixture: subscription "s" of ws-analyze with 3 single messages
// and a batch of 4 behind it (4 entries, 7 messages).
func analyzeFixture(t *testing.T, o Options) *Broker {
	t.Helper()
	b := RunT(t, o)
	ctx := wsCtx(t)
	c := sdkClient(t, b)
	topic := "persistent://public/default/ws-analyze"
	cons, err := c.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	if err != nil {
		t.Fatal(err)
	}
	cons.Close()
	single, err := c.CreateProducer(pulsar.ProducerOptions{Topic: topic, DisableBatching: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := single.Send(ctx, &pulsar.ProducerMessage{Payload: fmt.Appendf(nil, "s%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	batched, err := c.CreateProducer(pulsar.ProducerOptions{Topic: topic, BatchingMaxMessages: 4, BatchingMaxPublishDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		batched.SendAsync(ctx, &pulsar.ProducerMessage{Payload: fmt.Appendf(nil, "b%d", i)}, nil)
	}
	if err := batched.Flush(); err != nil {
		t.Fatal(err)
	}
	return b
}

func analyze(t *testing.T, b *Broker, sub, body string) (int, engine.AnalyzeResult) {
	t.Helper()
	code, out := adminDo(t, b, http.MethodPost, "/admin/v2/persistent/public/default/ws-analyze/subscription/"+sub+"/analyzeBacklog", body)
	var r engine.AnalyzeResult
	if code == http.StatusOK {
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
	}
	return code, r
}

func TestAnalyzeBacklog(t *testing.T) {
	b := analyzeFixture(t, Options{})
	code, r := analyze(t, b, "s", "")
	if code != http.StatusOK || r.Entries != 4 || r.Messages != 7 || r.FilterAcceptedEntries != 4 ||
		r.FilterAcceptedMessages != 7 || r.Aborted || r.FirstMessageID == "" || r.LastMessageID == "" {
		t.Fatalf("analyze = %d %+v, want 4 entries, 7 messages, complete", code, r)
	}
	// From a position: the scan starts there.
	var l, e int64
	if _, err := fmt.Sscanf(r.LastMessageID, "%d:%d", &l, &e); err != nil {
		t.Fatal(err)
	}
	code, r2 := analyze(t, b, "s", fmt.Sprintf(`{"ledgerId":%d,"entryId":%d}`, l, e-1))
	if code != http.StatusOK || r2.Entries != 2 || r2.Messages != 5 || r2.LastMessageID != r.LastMessageID {
		t.Fatalf("analyze from %d:%d = %d %+v, want 2 entries, 5 messages", l, e-1, code, r2)
	}
	if code, _ := analyze(t, b, "nosuchsub", ""); code != http.StatusNotFound {
		t.Fatalf("missing subscription: %d, want 404", code)
	}
}

// subscriptionBacklogScanMaxEntries: the scan stops there, aborted.
func TestAnalyzeBacklogMaxEntries(t *testing.T) {
	b := analyzeFixture(t, Options{BacklogScan: BacklogScanOptions{MaxEntries: 2}})
	code, r := analyze(t, b, "s", "")
	if code != http.StatusOK || r.Entries != 2 || r.Messages != 2 || !r.Aborted {
		t.Fatalf("analyze = %d %+v, want 2 entries, aborted", code, r)
	}
}

// subscriptionBacklogScanMaxTimeMs on the broker's clock: a scan that
// runs past it stops, aborted.
func TestAnalyzeBacklogMaxTime(t *testing.T) {
	clk := &tickingClock{now: time.Unix(1_700_000_000, 0), Clock: NewFakeClock(time.Unix(1_700_000_000, 0))}
	b := analyzeFixture(t, Options{Clock: clk, BacklogScan: BacklogScanOptions{MaxTime: 2500 * time.Millisecond}})
	// From now on each Now is 1 s later: the deadline check of every entry
	// costs 1 s, so 2.5 s let at most two entries through (fewer if
	// another goroutine reads the clock meanwhile).
	clk.mu.Lock()
	clk.step = time.Second
	clk.mu.Unlock()
	code, r := analyze(t, b, "s", "")
	if code != http.StatusOK || r.Entries > 2 || !r.Aborted {
		t.Fatalf("analyze = %d %+v, want at most 2 entries, aborted", code, r)
	}
}
