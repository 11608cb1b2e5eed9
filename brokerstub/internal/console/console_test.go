package console

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/internal/clock"
)

// fakeSource serves a Topic view that tests change, and counts reads.
type fakeSource struct {
	mu    sync.Mutex
	topic Topic
	err   error
	reads atomic.Int64
}

func (f *fakeSource) Overview(string) (Overview, error) { return Overview{}, nil }
func (f *fakeSource) Topic(string) (Topic, error) {
	f.reads.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.topic, f.err
}
func (f *fakeSource) Cursor(string, string, int) (Cursor, error) { return Cursor{}, nil }
func (f *fakeSource) KeyShared(string, string) (KeyShared, error) {
	return KeyShared{}, &Problem{Status: http.StatusNotFound, Reason: "Subscription s not found"}
}
func (f *fakeSource) Messages(string, string, int) (Messages, error) { return Messages{}, nil }

func (f *fakeSource) set(fn func(t *Topic)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(&f.topic)
}

// streamRecorder is a ResponseWriter that flushes and keeps what a stream
// wrote.
type streamRecorder struct {
	mu     sync.Mutex
	header http.Header
	code   int
	buf    bytes.Buffer
}

func (r *streamRecorder) Header() http.Header { return r.header }
func (r *streamRecorder) WriteHeader(c int)   { r.code = c }
func (r *streamRecorder) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.Write(b)
}
func (r *streamRecorder) Flush() {}
func (r *streamRecorder) events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, block := range strings.Split(r.buf.String(), "\n\n") {
		if strings.HasPrefix(block, "event: ") {
			out = append(out, block)
		}
	}
	return out
}

// TestStreamPollsOnlyWhileConnected: nothing reads the broker before a
// page connects or after it leaves; while it is connected, a poll per
// interval, and an event only when the view changed.
func TestStreamPollsOnlyWhileConnected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &fakeSource{}
		clk := clock.NewFake(time.Unix(1000, 0))
		c := New(src, Options{Clock: clk, Interval: 250 * time.Millisecond})
		clk.Advance(time.Minute)
		if n := src.reads.Load(); n != 0 {
			t.Fatalf("%d reads with no page open", n)
		}
		ctx, cancel := context.WithCancel(t.Context())
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/console/api/topic/x", nil)
		req.Header.Set("Accept", "text/event-stream")
		rec := &streamRecorder{header: http.Header{}}
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.Topic("persistent://public/default/x").ServeHTTP(rec, req)
		}()
		synctest.Wait()
		if n, e := src.reads.Load(), len(rec.events()); n != 1 || e != 1 {
			t.Fatalf("on connect: %d reads, %d events; want 1, 1", n, e)
		}
		if got := rec.header.Get("Content-Type"); got != "text/event-stream" {
			t.Fatalf("content type %q", got)
		}
		if c.Streams() != 1 {
			t.Fatalf("streams = %d", c.Streams())
		}
		for range 4 {
			clk.Advance(250 * time.Millisecond)
			synctest.Wait()
		}
		if n, e := src.reads.Load(), len(rec.events()); n != 5 || e != 1 {
			t.Fatalf("unchanged view: %d reads, %d events; want 5, 1", n, e)
		}
		src.set(func(tp *Topic) { tp.Backlog = 7 })
		clk.Advance(250 * time.Millisecond)
		synctest.Wait()
		ev := rec.events()
		if len(ev) != 2 || !strings.Contains(ev[1], `"backlog":7`) {
			t.Fatalf("changed view not pushed: %q", ev)
		}
		src.set(func(tp *Topic) { tp.Name = "" })
		src.mu.Lock()
		src.err = &Problem{Status: http.StatusNotFound, Reason: "Topic gone"}
		src.mu.Unlock()
		clk.Advance(250 * time.Millisecond)
		synctest.Wait()
		ev = rec.events()
		if len(ev) != 3 || !strings.HasPrefix(ev[2], "event: problem") || !strings.Contains(ev[2], "Topic gone") {
			t.Fatalf("problem not pushed: %q", ev)
		}
		cancel()
		<-done
		before := src.reads.Load()
		clk.Advance(time.Minute)
		synctest.Wait()
		if n := src.reads.Load(); n != before {
			t.Fatalf("%d reads after the page left", n-before)
		}
		if c.Streams() != 0 {
			t.Fatalf("streams = %d after the page left", c.Streams())
		}
	})
}

// TestStreamEndsWhenBrokerGone: a Source error wrapping ErrGone ends the
// stream instead of polling a closed broker.
func TestStreamEndsWhenBrokerGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &fakeSource{err: ErrGone}
		clk := clock.NewFake(time.Unix(0, 0))
		c := New(src, Options{Clock: clk})
		req := httptest.NewRequest(http.MethodGet, "/x?stream=1", nil)
		rec := &streamRecorder{header: http.Header{}}
		c.Topic("t").ServeHTTP(rec, req) // returns
		if n := src.reads.Load(); n != 1 {
			t.Fatalf("%d reads", n)
		}
	})
}

func TestStreamsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &fakeSource{}
		clk := clock.NewFake(time.Unix(0, 0))
		c := New(src, Options{Clock: clk, MaxStreams: 1})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/x?stream=1", nil)
		go c.Topic("t").ServeHTTP(&streamRecorder{header: http.Header{}}, req)
		synctest.Wait()
		rec := httptest.NewRecorder()
		c.Topic("t").ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x?stream=1", nil))
		if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "too many console streams") {
			t.Fatalf("second stream: %d %s", rec.Code, rec.Body)
		}
		cancel()
		synctest.Wait()
	})
}

func TestViewJSONAndProblems(t *testing.T) {
	src := &fakeSource{topic: Topic{Name: "persistent://a/b/c", Backlog: 3}}
	c := New(src, Options{})
	rec := httptest.NewRecorder()
	c.Topic("x").ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
	var tv Topic
	if err := json.Unmarshal(rec.Body.Bytes(), &tv); err != nil || rec.Code != 200 || tv.Backlog != 3 {
		t.Fatalf("%d %s %v", rec.Code, rec.Body, err)
	}
	rec = httptest.NewRecorder()
	c.KeyShared("x", "s").ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), `"reason":"Subscription s not found"`) {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	src.err = errors.New("boom")
	rec = httptest.NewRecorder()
	c.Topic("x").ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("plain error: %d", rec.Code)
	}
	for name, want := range map[string]string{"index.html": "text/html", "app.js": "text/javascript", "app.css": "text/css"} {
		rec = httptest.NewRecorder()
		c.Asset(name).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/console/"+name, nil))
		if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), want) || rec.Body.Len() == 0 {
			t.Fatalf("%s: %d %q", name, rec.Code, rec.Header().Get("Content-Type"))
		}
	}
	for _, bad := range []string{"../console.go", "nope.js", ""} {
		rec = httptest.NewRecorder()
		c.Asset(bad).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/console/x", nil))
		if bad != "" && rec.Code != http.StatusNotFound {
			t.Fatalf("%q: %d", bad, rec.Code)
		}
	}
}

func TestRates(t *testing.T) {
	var r rater
	at := time.Unix(0, 0)
	r.begin(at)
	if got := r.rate("k", 100); got != 0 {
		t.Fatalf("first sample rate %v", got)
	}
	r.end()
	r.begin(at.Add(500 * time.Millisecond))
	if got := r.rate("k", 150); got != 0 {
		t.Fatalf("rate before a window %v", got)
	}
	r.end()
	r.begin(at.Add(2 * time.Second))
	if got := r.rate("k", 300); got != 100 {
		t.Fatalf("rate = %v, want 100/s", got)
	}
	r.end()
	r.begin(at.Add(3 * time.Second))
	r.end()
	if len(r.samples) != 0 {
		t.Fatal("a counter not seen is not forgotten")
	}
}
