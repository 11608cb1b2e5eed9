package log

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"testing"
)

func TestNewLoggerWithSlog(t *testing.T) {
	var buf bytes.Buffer
	l := NewLoggerWithSlog(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo, AddSource: true})))
	l.Debug("hidden")
	l.SubLogger(Fields{"topic": "t1"}).WithError(errors.New("boom")).WithField("partition", 3).Warnf("lost %d", 2)
	l.WithFields(Fields{"k": "v"}).Info("a", "b")
	out := buf.String()
	if strings.Contains(out, "hidden") {
		t.Fatalf("debug logged at info level:\n%s", out)
	}
	for _, want := range []string{"level=WARN", `msg="lost 2"`, "topic=t1", "partition=3", "error=boom", "k=v", "msg=ab", "log_test.go"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// recorder is a Logger of its own, as an application might write: one
// type for the Logger and its Entries, lines shared.
type recorder struct {
	mu    *sync.Mutex
	lines *[]string
	f     Fields
}

func newRecorder() *recorder { return &recorder{mu: &sync.Mutex{}, lines: &[]string{}} }

func (r *recorder) with(f Fields) *recorder {
	m := Fields{}
	for k, v := range r.f {
		m[k] = v
	}
	for k, v := range f {
		m[k] = v
	}
	return &recorder{mu: r.mu, lines: r.lines, f: m}
}

func (r *recorder) add(level string, args ...interface{}) {
	kv := make([]string, 0, len(r.f))
	for k, v := range r.f {
		kv = append(kv, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(kv)
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.lines = append(*r.lines, level+" "+fmt.Sprint(args...)+" "+strings.Join(kv, ","))
}

func (r *recorder) SubLogger(f Fields) Logger               { return r.with(f) }
func (r *recorder) WithFields(f Fields) Entry               { return r.with(f) }
func (r *recorder) WithField(k string, v interface{}) Entry { return r.with(Fields{k: v}) }
func (r *recorder) WithError(err error) Entry               { return r.with(Fields{"error": err}) }
func (r *recorder) Debug(a ...interface{})                  { r.add("D", a...) }
func (r *recorder) Info(a ...interface{})                   { r.add("I", a...) }
func (r *recorder) Warn(a ...interface{})                   { r.add("W", a...) }
func (r *recorder) Error(a ...interface{})                  { r.add("E", a...) }
func (r *recorder) Debugf(f string, a ...interface{})       { r.add("D", fmt.Sprintf(f, a...)) }
func (r *recorder) Infof(f string, a ...interface{})        { r.add("I", fmt.Sprintf(f, a...)) }
func (r *recorder) Warnf(f string, a ...interface{})        { r.add("W", fmt.Sprintf(f, a...)) }
func (r *recorder) Errorf(f string, a ...interface{})       { r.add("E", fmt.Sprintf(f, a...)) }

func TestSlogOverALogger(t *testing.T) {
	r := newRecorder()
	s := Slog(r).With("broker", "b:6650").WithGroup("req")
	s.Debug("d", "id", 1)
	s.Info("i")
	s.Warn("w", slog.Group("g", "x", 2))
	s.Error("e", "err", "bad")
	want := []string{
		"D d broker=b:6650,req.id=1",
		"I i broker=b:6650",
		"W w broker=b:6650,req.g.x=2",
		"E e broker=b:6650,req.err=bad",
	}
	if strings.Join(*r.lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(*r.lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestSlogUnwrapsAndDiscards(t *testing.T) {
	sl := slog.New(slog.DiscardHandler)
	if Slog(NewLoggerWithSlog(sl)) != sl {
		t.Fatal("Slog did not return the wrapped *slog.Logger")
	}
	for _, l := range []Logger{nil, DefaultNopLogger()} {
		if Slog(l).Enabled(t.Context(), slog.LevelError) {
			t.Fatalf("Slog(%T) is enabled", l)
		}
	}
	n := DefaultNopLogger()
	n.SubLogger(Fields{"a": 1}).WithError(errors.New("x")).WithField("b", 2).Errorf("nothing %d", 1)
}
