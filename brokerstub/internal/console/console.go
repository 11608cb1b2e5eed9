// Package console is brokerstub's web console: pages that draw a test
// broker's state (topics, subscriptions, cursors, Key_Shared dispatchers,
// stored messages) and follow it live.
//
// The console reads the broker through Source, which the broker implements
// by asking each topic's goroutine for a snapshot. It costs the data path
// nothing while nobody watches: a snapshot is taken only for a request,
// and a live page (a server-sent events stream) polls every Interval only
// while its client is connected, pushing a view only when it changed.
// Routing and authorization are the broker's: every console route is a
// line of its admin route table with the Pulsar operation it is.
package console

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"sync/atomic"
	"time"

	"github.com/pulsargo/sdk/internal/clock"
)

// Source is what the console reads. Each method returns a consistent
// snapshot of one view, taken by the goroutine that owns the state; an
// error that wraps ErrGone ends a live stream.
type Source interface {
	// Overview lists what role may see, and what it may not.
	Overview(role string) (Overview, error)
	// Topic is page 2 for the topic named topic.
	Topic(topic string) (Topic, error)
	// Cursor is page 3 for a subscription, with at most limit entries.
	Cursor(topic, sub string, limit int) (Cursor, error)
	// KeyShared is page 4 for a Key_Shared subscription.
	KeyShared(topic, sub string) (KeyShared, error)
	// Messages is page 5: at most n entries of topic from position from
	// ("" for the first; "ledger:entry" otherwise), each described by
	// DecodeEntry and decoded with Entry.Decode.
	Messages(topic, from string, n int) (Messages, error)
}

// Options configure a Console.
type Options struct {
	// Interval is how often a live page polls its view. Default 250 ms.
	Interval time.Duration
	// Heartbeat is how often a live stream with no change sends a comment
	// so that proxies keep it open. Default 15 s.
	Heartbeat time.Duration
	// Clock paces the polls. Default the real clock (the console follows
	// wall time even when the broker runs on a fake clock).
	Clock clock.Clock
	// MaxStreams bounds the live streams open at once; one more is
	// refused with 503. Default 64.
	MaxStreams int
}

// Console serves the pages. It is safe for concurrent use.
type Console struct {
	src     Source
	opts    Options
	polls   atomic.Int64
	streams atomic.Int64
}

//go:embed assets
var assets embed.FS

// New returns a console reading src.
func New(src Source, o Options) *Console {
	if o.Interval <= 0 {
		o.Interval = 250 * time.Millisecond
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 15 * time.Second
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = 64
	}
	return &Console{src: src, opts: o}
}

// Polls returns the number of snapshots live streams have taken so far.
func (c *Console) Polls() int64 { return c.polls.Load() }

// Streams returns the number of live streams open now.
func (c *Console) Streams() int64 { return c.streams.Load() }

// Page serves the console's single page (/console).
func (c *Console) Page() http.Handler { return c.Asset("index.html") }

// Asset serves an embedded file by name (app.js, app.css, index.html);
// an unknown name is 404.
func (c *Console) Asset(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := fs.ReadFile(assets, path.Join("assets", path.Clean("/" + name)[1:]))
		if err != nil {
			http.Error(w, `{"reason":"Not Found"}`, http.StatusNotFound)
			return
		}
		ct := map[string]string{".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
			".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}[path.Ext(name)]
		if ct == "" {
			ct = "application/octet-stream"
		}
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self'; img-src 'self' data:")
		_, _ = w.Write(b)
	})
}

// Whoami answers who the user is.
func (c *Console) Whoami(who Whoami) http.Handler {
	return c.view(func() (any, error) { return who, nil })
}

// Overview serves page 1 for role, live on request.
func (c *Console) Overview(role string) http.Handler {
	return c.view(func() (any, error) { return c.src.Overview(role) })
}

// Topic serves page 2.
func (c *Console) Topic(topic string) http.Handler {
	return c.view(func() (any, error) { return c.src.Topic(topic) })
}

// DefaultCursorLimit is the number of entries page 3 draws unless the
// request asks for fewer (limit=) or more (up to MaxCursorLimit).
const (
	DefaultCursorLimit = 200
	MaxCursorLimit     = 2000
	DefaultPeek        = 20
	MaxPeek            = 200
)

// Cursor serves page 3; limit= bounds the entries drawn.
func (c *Console) Cursor(topic, sub string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limit := queryInt(r, "limit", DefaultCursorLimit, 1, MaxCursorLimit)
		c.view(func() (any, error) { return c.src.Cursor(topic, sub, limit) }).ServeHTTP(w, r)
	})
}

// KeyShared serves page 4.
func (c *Console) KeyShared(topic, sub string) http.Handler {
	return c.view(func() (any, error) { return c.src.KeyShared(topic, sub) })
}

// Messages serves page 5: from= a position, n= the number of entries.
func (c *Console) Messages(topic string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := queryInt(r, "n", DefaultPeek, 1, MaxPeek)
		from := r.URL.Query().Get("from")
		c.view(func() (any, error) { return c.src.Messages(topic, from, n) }).ServeHTTP(w, r)
	})
}
