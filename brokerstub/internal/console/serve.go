package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrGone is wrapped by a Source error after which a live stream cannot go
// on (the broker closed).
var ErrGone = errors.New("console: broker closed")

// Problem is a Source error that says what status to answer: a topic or
// subscription that does not exist is 404.
type Problem struct {
	Status int
	Reason string
}

func (p *Problem) Error() string { return p.Reason }

// wantsStream reports whether the request asks for a live stream
// (Accept: text/event-stream, or stream=1 for clients that cannot set
// headers).
func wantsStream(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/event-stream") || r.URL.Query().Get("stream") == "1"
}

func queryInt(r *http.Request, name string, def, lo, hi int) int {
	v, err := strconv.Atoi(r.URL.Query().Get(name))
	if err != nil {
		return def
	}
	return min(max(v, lo), hi)
}

// view serves a snapshot as JSON, or as a live stream of snapshots.
func (c *Console) view(snap func() (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if wantsStream(r) {
			c.stream(w, r, snap)
			return
		}
		v, err := snap()
		if err != nil {
			writeProblem(w, err)
			return
		}
		b, err := json.Marshal(v)
		if err != nil {
			writeProblem(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(b)
	})
}

func problemOf(err error) *Problem {
	var p *Problem
	if errors.As(err, &p) {
		return p
	}
	return &Problem{Status: http.StatusServiceUnavailable, Reason: err.Error()}
}

func writeProblem(w http.ResponseWriter, err error) {
	p := problemOf(err)
	b, _ := json.Marshal(map[string]string{"reason": p.Reason})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(p.Status)
	_, _ = w.Write(b)
}

// stream sends the view as server-sent events: "state" with the view's
// JSON whenever it differs from the last one sent, "problem" with
// {"status","reason"} when the snapshot fails (the page says so and keeps
// listening: a topic may come back), and a comment as heartbeat. It polls
// only while the client is connected: the poll timer is armed after each
// snapshot and the loop ends with the request's context.
func (c *Console) stream(w http.ResponseWriter, r *http.Request, snap func() (any, error)) {
	if c.streams.Add(1) > int64(c.opts.MaxStreams) {
		c.streams.Add(-1)
		writeProblem(w, &Problem{Status: http.StatusServiceUnavailable, Reason: fmt.Sprintf("too many console streams (%d open)", c.opts.MaxStreams)})
		return
	}
	defer c.streams.Add(-1)
	rc := http.NewResponseController(w)
	// The server's read deadline would cancel a long stream's context.
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	tick := make(chan struct{}, 1)
	var stop func() bool
	defer func() {
		if stop != nil {
			stop()
		}
	}()
	var rt rater
	var last []byte
	quiet := time.Duration(0)
	for {
		c.polls.Add(1)
		v, err := snap()
		var event string
		var body []byte
		if err != nil {
			p := problemOf(err)
			event = "problem"
			body, _ = json.Marshal(map[string]any{"status": p.Status, "reason": p.Reason})
		} else {
			rt.begin(c.opts.Clock.Now())
			if rv, ok := v.(rated); ok {
				v = rv.withRates(&rt)
			}
			rt.end()
			event = "state"
			if body, err = json.Marshal(v); err != nil {
				return
			}
		}
		switch {
		case !bytes.Equal(body, last):
			if _, werr := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, body); werr != nil {
				return
			}
			last, quiet = body, 0
		case quiet >= c.opts.Heartbeat:
			if _, werr := fmt.Fprint(w, ": ping\n\n"); werr != nil {
				return
			}
			quiet = 0
		}
		if rc.Flush() != nil {
			return
		}
		if errors.Is(err, ErrGone) {
			return
		}
		stop = c.opts.Clock.AfterFunc(c.opts.Interval, func() {
			select {
			case tick <- struct{}{}:
			default:
			}
		})
		select {
		case <-r.Context().Done():
			return
		case <-tick:
			quiet += c.opts.Interval
		}
	}
}
