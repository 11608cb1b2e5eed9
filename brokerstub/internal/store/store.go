package store

import "errors"

// FirstLedgerID is the first ledger id that NewLedgerID returns in a store.
// Pulsar ledger ids are >= 0, and -1 is reserved for the "earliest" marker;
// starting at 1 keeps 0 free so that a zero Position never names a real entry.
const FirstLedgerID int64 = 1

// Errors returned by stores. Errors from the underlying storage are wrapped,
// so test with [errors.Is].
var (
	// ErrClosed is returned by every method called after Close.
	ErrClosed = errors.New("store: closed")
	// ErrInvalidArgument is returned for an empty topic or subscription name,
	// a negative ledger or entry id, or a negative partition count.
	ErrInvalidArgument = errors.New("store: invalid argument")
	// ErrOutOfOrder is returned by AppendEntry when the entry's position is
	// not strictly after the last stored entry of the topic.
	ErrOutOfOrder = errors.New("store: entry out of order")
	// ErrCorrupt is returned when stored data cannot be decoded.
	ErrCorrupt = errors.New("store: corrupt data")
)

// StoredEntry is one topic entry as persisted: its position and the entry
// exactly as the producer sent it.
type StoredEntry struct {
	// Ledger and Entry are the position; both are >= 0.
	Ledger int64
	Entry  int64
	// Meta is the serialized MessageMetadata as received.
	Meta []byte
	// Payload is the (possibly compressed, possibly batched) payload as received.
	Payload []byte
	// PublishTime is the publish_time of the metadata, in Unix milliseconds.
	PublishTime uint64
	// BrokerTimestamp is when the stub stored the entry, in Unix milliseconds.
	BrokerTimestamp uint64
	// NumMessages is the number of messages in the entry (1 unless batched).
	NumMessages int32
}

// Store is the persistence behind brokerstub. Implementations are safe for
// concurrent use by multiple goroutines. Topic and subscription names must
// be non-empty.
type Store interface {
	// AppendEntry stores e as the new last entry of topic, creating the
	// topic if needed. Its position must be strictly after the last stored
	// entry of topic (else ErrOutOfOrder) and its ids must be >= 0. When it
	// returns nil the entry is durable. The store keeps or writes e.Meta and
	// e.Payload without copying them first: the caller must not modify them
	// afterwards. It also raises the topic's ledger id counter to e.Ledger
	// if that is higher.
	AppendEntry(topic string, e StoredEntry) error

	// Entries calls fn for every stored entry of topic in position order,
	// stopping at and returning the first error fn returns. A topic that does
	// not exist has no entries. fn must not modify the slices it is given
	// and must not call methods of the store.
	Entries(topic string, fn func(StoredEntry) error) error

	// NewLedgerID returns a ledger id for topic that is greater than every
	// id this store has returned or stored before, for any topic, also
	// across a reopen and across DeleteTopic, and records it durably before
	// returning: ledger ids are unique in the store, as Pulsar's are in a
	// cluster (BookKeeper allocates them), so a message id names one
	// topic's entry. The first id of a store is FirstLedgerID. It creates
	// the topic if needed.
	NewLedgerID(topic string) (int64, error)

	// Topics returns the names of all existing topics, sorted (an empty,
	// non-nil slice when there are none). A topic
	// exists from its first AppendEntry, NewLedgerID or SaveCursor until
	// DeleteTopic.
	Topics() ([]string, error)

	// DeleteTopic removes the entries and cursors of topic. Its ledger id
	// counter is kept, so a topic created again with the same name never
	// reuses a position. Deleting a topic that does not exist is not an
	// error. Partition counts are separate and not touched.
	DeleteTopic(topic string) error

	// SaveCursor durably stores state (copied) as the cursor of
	// subscription sub on topic, replacing any previous state, and creates
	// the topic if needed.
	SaveCursor(topic, sub string, state []byte) error

	// LoadCursor returns a copy of the state saved for sub on topic, and
	// whether there is one.
	LoadCursor(topic, sub string) (state []byte, ok bool, err error)

	// Cursors returns copies of all cursor states of topic, by subscription
	// name. The map is empty (not nil) when there are none.
	Cursors(topic string) (map[string][]byte, error)

	// DeleteCursor removes the cursor of sub on topic. Deleting a missing
	// cursor is not an error.
	DeleteCursor(topic, sub string) error

	// SetPartitions records that topic is a partitioned topic with n
	// partitions; n == 0 removes the record, and n < 0 or n > MaxInt32 is
	// an ErrInvalidArgument.
	SetPartitions(topic string, n int) error

	// Partitions returns every recorded partitioned topic and its number
	// of partitions. The map is empty (not nil) when there are none.
	Partitions() (map[string]int, error)

	// Close releases the store. Every later call except Close returns
	// ErrClosed; Close itself may be called again and returns nil.
	Close() error
}

// AsyncAppender is implemented by stores whose appends can be pipelined
// (the bbolt store): the caller queues entries without waiting for each to
// be synced, so that entries queued together share one sync.
type AsyncAppender interface {
	// AppendEntryAsync queues e as AppendEntry would store it and returns
	// at once. done is called exactly once, from another goroutine (or
	// before AppendEntryAsync returns, for an entry refused at once), with
	// the error AppendEntry would return, and only once e is durable when
	// that is nil. The entries one goroutine queues for a topic are stored
	// and reported in the order it queued them; after one fails, the later
	// ones of the same topic in the same ledger fail with ErrOutOfOrder, so
	// that the stored ledger has no hole.
	AppendEntryAsync(topic string, e StoredEntry, done func(error))
}
