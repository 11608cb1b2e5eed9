// Package log is the official Go client's pulsar/log API: the Logger and
// Entry interfaces that ClientOptions.Logger takes, a logger that discards
// everything, and an adapter from log/slog. Code that imports
// github.com/apache/pulsar-client-go/pulsar/log ports by changing the
// import path; NewLoggerWithLogrus is not here (this SDK does not depend
// on logrus): wrap a logrus logger in an slog handler, or implement Logger.
//
// The other direction, Slog, turns any Logger into a *slog.Logger; the
// client logs through it.
package log

// Fields are key-value pairs attached to log entries.
type Fields map[string]interface{}

// Logger is the interface the client logs through.
type Logger interface {
	// SubLogger returns a Logger that adds fields to every entry.
	SubLogger(fields Fields) Logger

	// WithFields returns an Entry with fields.
	WithFields(fields Fields) Entry
	// WithField returns an Entry with one field.
	WithField(name string, value interface{}) Entry
	// WithError returns an Entry with the field "error".
	WithError(err error) Entry

	// Debug logs at debug level; the arguments are joined as fmt.Sprint.
	Debug(args ...interface{})
	// Info logs at info level.
	Info(args ...interface{})
	// Warn logs at warn level.
	Warn(args ...interface{})
	// Error logs at error level.
	Error(args ...interface{})

	// Debugf logs at debug level, formatted as fmt.Sprintf.
	Debugf(format string, args ...interface{})
	// Infof logs at info level, formatted.
	Infof(format string, args ...interface{})
	// Warnf logs at warn level, formatted.
	Warnf(format string, args ...interface{})
	// Errorf logs at error level, formatted.
	Errorf(format string, args ...interface{})
}

// Entry is a log entry being built: fields, then a level method that logs
// it.
type Entry interface {
	// WithFields adds fields.
	WithFields(fields Fields) Entry
	// WithField adds one field.
	WithField(name string, value interface{}) Entry

	// Debug logs the entry at debug level.
	Debug(args ...interface{})
	// Info logs the entry at info level.
	Info(args ...interface{})
	// Warn logs the entry at warn level.
	Warn(args ...interface{})
	// Error logs the entry at error level.
	Error(args ...interface{})

	// Debugf logs the entry at debug level, formatted.
	Debugf(format string, args ...interface{})
	// Infof logs the entry at info level, formatted.
	Infof(format string, args ...interface{})
	// Warnf logs the entry at warn level, formatted.
	Warnf(format string, args ...interface{})
	// Errorf logs the entry at error level, formatted.
	Errorf(format string, args ...interface{})
}

// DefaultNopLogger returns a Logger that discards everything.
func DefaultNopLogger() Logger { return nopLogger{} }

type nopLogger struct{}

func (l nopLogger) SubLogger(Fields) Logger           { return l }
func (nopLogger) WithFields(Fields) Entry             { return nopLogger{} }
func (nopLogger) WithField(string, interface{}) Entry { return nopLogger{} }
func (nopLogger) WithError(error) Entry               { return nopLogger{} }
func (nopLogger) Debug(...interface{})                {}
func (nopLogger) Info(...interface{})                 {}
func (nopLogger) Warn(...interface{})                 {}
func (nopLogger) Error(...interface{})                {}
func (nopLogger) Debugf(string, ...interface{})       {}
func (nopLogger) Infof(string, ...interface{})        {}
func (nopLogger) Warnf(string, ...interface{})        {}
func (nopLogger) Errorf(string, ...interface{})       {}
