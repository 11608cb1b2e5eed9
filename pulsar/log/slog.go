package log

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"time"
)

// NewLoggerWithSlog returns a Logger that logs to logger: the level methods
// map to slog's levels, fields to attributes, WithError to the attribute
// "error". As the official client's adapter.
func NewLoggerWithSlog(logger *slog.Logger) Logger { return &slogLogger{l: logger} }

// slogLogger is both the Logger and its Entries.
type slogLogger struct{ l *slog.Logger }

func (s *slogLogger) SubLogger(f Fields) Logger { return &slogLogger{l: s.l.With(attrs(f)...)} }
func (s *slogLogger) WithFields(f Fields) Entry { return &slogLogger{l: s.l.With(attrs(f)...)} }
func (s *slogLogger) WithField(name string, v interface{}) Entry {
	return &slogLogger{l: s.l.With(name, v)}
}
func (s *slogLogger) WithError(err error) Entry { return s.WithField("error", err) }

func (s *slogLogger) Debug(args ...interface{}) { s.log(slog.LevelDebug, "", args) }
func (s *slogLogger) Info(args ...interface{})  { s.log(slog.LevelInfo, "", args) }
func (s *slogLogger) Warn(args ...interface{})  { s.log(slog.LevelWarn, "", args) }
func (s *slogLogger) Error(args ...interface{}) { s.log(slog.LevelError, "", args) }

func (s *slogLogger) Debugf(f string, args ...interface{}) { s.log(slog.LevelDebug, f, args) }
func (s *slogLogger) Infof(f string, args ...interface{})  { s.log(slog.LevelInfo, f, args) }
func (s *slogLogger) Warnf(f string, args ...interface{})  { s.log(slog.LevelWarn, f, args) }
func (s *slogLogger) Errorf(f string, args ...interface{}) { s.log(slog.LevelError, f, args) }

// log formats the message only when the level is enabled, and records the
// caller of the level method as the source.
func (s *slogLogger) log(level slog.Level, format string, args []interface{}) {
	ctx := context.Background()
	if !s.l.Enabled(ctx, level) {
		return
	}
	msg := fmt.Sprint(args...)
	if format != "" {
		msg = fmt.Sprintf(format, args...)
	}
	var pcs [1]uintptr
	runtime.Callers(3, pcs[:])
	r := slog.NewRecord(time.Now(), level, msg, pcs[0])
	_ = s.l.Handler().Handle(ctx, r)
}

// attrs converts fields to slog's key-value arguments.
func attrs(f Fields) []any {
	out := make([]any, 0, 2*len(f))
	for k, v := range f {
		out = append(out, k, v)
	}
	return out
}

// Slog returns a *slog.Logger that logs to l: the one NewLoggerWithSlog
// wrapped, or for any other Logger one whose records go to l at the
// matching level (debug, info, warn, error) with their attributes as
// fields. A nil l discards everything.
func Slog(l Logger) *slog.Logger {
	switch v := l.(type) {
	case nil:
		return slog.New(slog.DiscardHandler)
	case *slogLogger:
		return v.l
	case nopLogger:
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(&handler{l: l})
}

// handler is the slog.Handler of Slog over a Logger.
type handler struct {
	l      Logger
	fields Fields // attributes of WithAttrs, keys prefixed by the groups
	group  string // the open group's prefix, "a.b."
}

// Enabled says yes: a Logger has no way to tell its level.
func (h *handler) Enabled(context.Context, slog.Level) bool { return true }

func (h *handler) Handle(_ context.Context, r slog.Record) error {
	f := make(Fields, len(h.fields)+r.NumAttrs())
	for k, v := range h.fields {
		f[k] = v
	}
	r.Attrs(func(a slog.Attr) bool {
		addAttr(f, h.group, a)
		return true
	})
	e := h.l.WithFields(f)
	switch {
	case r.Level >= slog.LevelError:
		e.Error(r.Message)
	case r.Level >= slog.LevelWarn:
		e.Warn(r.Message)
	case r.Level >= slog.LevelInfo:
		e.Info(r.Message)
	default:
		e.Debug(r.Message)
	}
	return nil
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	f := make(Fields, len(h.fields)+len(as))
	for k, v := range h.fields {
		f[k] = v
	}
	for _, a := range as {
		addAttr(f, h.group, a)
	}
	return &handler{l: h.l, fields: f, group: h.group}
}

func (h *handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &handler{l: h.l, fields: h.fields, group: h.group + name + "."}
}

// addAttr puts a into f under prefix, flattening groups as "group.key".
func addAttr(f Fields, prefix string, a slog.Attr) {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range v.Group() {
			addAttr(f, p, g)
		}
		return
	}
	if a.Key == "" {
		return
	}
	f[prefix+a.Key] = v.Any()
}
