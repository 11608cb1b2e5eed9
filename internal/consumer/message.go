package consumer

import (
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

// Message is one message as the engine delivers it.
type Message struct {
	// Topic is the engine's topic (the partition's name).
	Topic string
	// ID is a messageid.ID, or a messageid.ChunkMessageID for a chunked
	// message; its partition is the engine's.
	ID messageid.MessageID
	// Payload is the uncompressed body (the whole body of a chunked
	// message).
	Payload []byte
	// Meta is the entry's metadata (a chunked message's last chunk's).
	Meta *proto.MessageMetadata
	// Single is the message's metadata inside a batch, nil when the entry
	// is not a batch.
	Single *proto.SingleMessageMetadata
	// RedeliveryCount is how often the broker redelivered it.
	RedeliveryCount uint32
	// BrokerMeta is the broker entry metadata of the entry (of a chunked
	// message, of its last chunk), nil when the broker sends none.
	BrokerMeta *proto.BrokerEntryMetadata
	// Encrypted reports a payload delivered as it came because it could
	// not be decrypted (CryptoConsume): still encrypted, compressed, and
	// the whole entry.
	Encrypted bool
	// Stream, for a streamed chunked message (see streaming.go), is its
	// body, read as its chunks arrive; Payload is nil then.
	Stream *Stream

	stream *streamState // the loop's record of Stream
	held   int64        // bytes counted against Options.Memory while queued
}

// Key returns the partition key.
func (m *Message) Key() string {
	if m.Single != nil {
		return m.Single.GetPartitionKey()
	}
	return m.Meta.GetPartitionKey()
}

// OrderingKey returns the ordering key.
func (m *Message) OrderingKey() string {
	if m.Single != nil && m.Single.OrderingKey != nil {
		return string(m.Single.GetOrderingKey())
	}
	return string(m.Meta.GetOrderingKey())
}

// EventTimeMillis returns the event time in Unix milliseconds, 0 if unset.
func (m *Message) EventTimeMillis() uint64 {
	if m.Single != nil && m.Single.EventTime != nil {
		return m.Single.GetEventTime()
	}
	return m.Meta.GetEventTime()
}

// Properties returns the application properties, nil when there are none.
func (m *Message) Properties() map[string]string {
	kvs := m.Meta.GetProperties()
	if m.Single != nil {
		kvs = m.Single.GetProperties()
	}
	if len(kvs) == 0 {
		return nil
	}
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		out[kv.GetKey()] = kv.GetValue()
	}
	return out
}

// position is the place of an entry: ledger and entry id.
type position struct {
	ledger, entry int64
}

func posOf(id messageid.ID) position { return position{id.LedgerID(), id.EntryID()} }

func (p position) less(q position) bool {
	if p.ledger != q.ledger {
		return p.ledger < q.ledger
	}
	return p.entry < q.entry
}

// cmpPoint orders a message id against a start or seek point: by entry and,
// when both name a batch index, by it. A point without batch index stands
// for its whole entry. A chunk id is placed at its last chunk.
func cmpPoint(id, point messageid.MessageID) int {
	a, b := messageid.LastChunk(id), messageid.LastChunk(point)
	switch pa, pb := posOf(a), posOf(b); {
	case pa.less(pb):
		return -1
	case pb.less(pa):
		return 1
	}
	if a.BatchIdx() < 0 || b.BatchIdx() < 0 {
		return 0
	}
	switch {
	case a.BatchIdx() < b.BatchIdx():
		return -1
	case a.BatchIdx() > b.BatchIdx():
		return 1
	}
	return 0
}
