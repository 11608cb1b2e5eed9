package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
)

// A run of a client that fails — its child process panics, or the run
// returns an error — is recorded and the benchmark goes on with the other
// runs and workloads: one client's crash (the official client's
// sendRequest.done panic, apache/pulsar-client-go#1497, took a whole run
// down) should not cost the figures of everything else. A failed run
// counts in no median; the table and the JSON list it with the first lines
// of its panic or its error.

// Failure is one failed run.
type Failure struct {
	Client   string // "ours", "theirs" or "raw"
	Workload string // "w1".."w7"
	Run      int    // -1 for a warm-up run
	Error    string // the error, then the first lines of the panic, if any
}

// failedRun is the error of a run whose child process failed, with what it
// wrote on stderr about it.
type failedRun struct {
	err    error
	detail string // the first lines of the child's panic, or its last lines
}

func (f *failedRun) Error() string {
	if f.detail == "" {
		return f.err.Error()
	}
	return f.err.Error() + "\n" + f.detail
}

func (f *failedRun) Unwrap() error { return f.err }

// panicLines is how many lines of a child's stderr a failure keeps: from
// the "panic:" line on (the goroutine that panicked and its first frames),
// or the last ones when there is no panic.
const panicLines = 12

// stderrTail passes a child's stderr through to w and keeps, in bounded
// memory, the first panicLines lines from its first "panic:" line (or
// "fatal error:"), else its last panicLines lines. Safe for the one writer
// exec gives it and a reader after Wait.
type stderrTail struct {
	w       io.Writer
	mu      sync.Mutex
	partial []byte   // the current line, up to maxLine bytes
	last    []string // the last lines (no panic seen)
	panic   []string // from the panic line on
}

// maxLine bounds one kept line.
const maxLine = 400

func (t *stderrTail) Write(p []byte) (int, error) {
	n := len(p)
	if t.w != nil {
		_, _ = t.w.Write(p)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := maxLine - len(t.partial); room > 0 {
			t.partial = append(t.partial, chunk[:min(room, len(chunk))]...)
		}
		if i < 0 {
			break
		}
		t.line(string(t.partial))
		t.partial = t.partial[:0]
		p = p[i+1:]
	}
	return n, nil
}

// line files one complete line.
func (t *stderrTail) line(s string) {
	switch {
	case t.panic != nil:
		if len(t.panic) < panicLines {
			t.panic = append(t.panic, s)
		}
	case strings.HasPrefix(s, "panic:") || strings.HasPrefix(s, "fatal error:"):
		t.panic = append(make([]string, 0, panicLines), s)
	default:
		if len(t.last) == panicLines {
			t.last = append(t.last[:0], t.last[1:]...)
		}
		t.last = append(t.last, s)
	}
}

// lines returns what was kept: the panic's first lines, or the last lines.
func (t *stderrTail) lines() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.partial) > 0 {
		t.line(string(t.partial))
		t.partial = t.partial[:0]
	}
	if t.panic != nil {
		return strings.Join(t.panic, "\n")
	}
	return strings.Join(t.last, "\n")
}

// workloadOf names the workload whose run measures the figure key of
// Results (w3, w4 and the W2 CPU figures come with W2's run).
func workloadOf(key string) string {
	switch {
	case key == "w3" || key == "w4" || strings.HasPrefix(key, "w2"):
		return "w2"
	case strings.HasPrefix(key, "w5"):
		return "w5"
	case strings.HasPrefix(key, "w6"):
		return "w6"
	case strings.HasPrefix(key, "w7"):
		return "w7"
	}
	return "w1"
}

// printFailures lists the failed runs under the table.
func printFailures(w io.Writer, fs []Failure) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintf(w, "failed runs (counted in no median):\n")
	for _, f := range fs {
		lines := strings.Split(f.Error, "\n")
		fmt.Fprintf(w, "  %s %s %s: %s\n", runLabel(f.Run), f.Workload, f.Client, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "      %s\n", l)
		}
	}
	fmt.Fprintln(w)
}
