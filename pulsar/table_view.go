package pulsar

import (
	"github.com/pulsargo/sdk/pulsar/log"
	"reflect"
	"time"
)

// TableViewOptions configure a TableView. Field names, meanings and
// defaults follow the official Go client's.
type TableViewOptions struct {
	// Topic is the topic (partitioned or not) whose latest value per key
	// the view holds. Required.
	Topic string
	// AutoUpdatePartitionsInterval is how often the view asks for the
	// topic's partition count and starts reading the partitions added.
	// Default (0 or negative) 1 minute. A topic without partitions is not
	// polled.
	AutoUpdatePartitionsInterval time.Duration
	// Schema decodes the values (with the schema version each message was
	// written with, as Message.GetSchemaValue). Default nil: the values are
	// the payloads, as []byte.
	Schema Schema
	// SchemaValueType is the type of the values: each is decoded into a
	// new *SchemaValueType and stored as the SchemaValueType it points to
	// (so reflect.TypeOf("") stores strings, reflect.TypeOf(&s) *strings).
	// Required with a Schema; without one it must be nil or []byte.
	SchemaValueType reflect.Type
	// Logger receives the view's logs (values skipped, listeners that
	// failed); pulsar/log's Logger, as the official option (wrap a slog
	// logger with log.NewLoggerWithSlog). Default: the client's Logger.
	Logger log.Logger
}

// TableView is a map of the latest value of each key of a topic, read from
// the earliest message of every partition (a compacted read) and kept up
// to date as messages arrive. A message with an empty payload (a
// tombstone, as a null value written by the Java client) removes its key;
// a message without a key is ignored; a value that does not decode with
// the Schema is logged and skipped, leaving the key's previous value (the
// official client stores the zero value instead). Values are stored as
// decoded, not copied: callers must not modify them. It is safe for
// concurrent use.
type TableView interface {
	// Size returns the number of keys.
	Size() int
	// IsEmpty reports whether the view has no key.
	IsEmpty() bool
	// ContainsKey reports whether the view has key.
	ContainsKey(key string) bool
	// Get returns the value of key, nil when the view does not have it.
	Get(key string) any
	// Entries returns a copy of the view's keys and values.
	Entries() map[string]any
	// Keys returns the keys, sorted.
	Keys() []string
	// ForEach calls action for each key and value (of a snapshot taken
	// when it is called), until action returns an error, which it returns.
	ForEach(action func(key string, value any) error) error
	// ForEachAndListen calls action as ForEach does and then, if action
	// returned no error, for each update after that snapshot, in the order
	// the view applies them: every update is seen once, after the
	// snapshot. A removal calls action with the zero value of
	// SchemaValueType, as the official client. Actions and listeners are
	// called one at a time, on the view's own goroutine, so they may call
	// the view's other methods (Close too) but not ForEachAndListen, and an
	// action that blocks holds the view's updates back. The error of a
	// listener is logged. After Close it is ForEach.
	ForEachAndListen(action func(key string, value any) error) error
	// Close stops reading the topic and calling listeners; the view keeps
	// the values it has. A listener call in progress when Close is called
	// may end after it returns (so that a listener may call Close).
	Close()
}

// CreateTableView creates a table view of opts.Topic and returns it once it
// holds every message the topic had (implemented in table_view_impl.go).
func (c *client) CreateTableView(opts TableViewOptions) (TableView, error) {
	return c.createTableView(opts)
}
