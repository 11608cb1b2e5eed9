package producer

import (
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
	"github.com/pulsargo/sdk/messageid"
)

// Message is what the engine sends of a pulsar.ProducerMessage (which
// documents each field): its payload, already encoded with its schema, and
// what goes in its metadata. Package pulsar builds one per send.
type Message struct {
	Payload             []byte
	Key, OrderingKey    string
	Properties          map[string]string
	EventTime           time.Time // zero, or at or before the Unix epoch: none
	ReplicationClusters []string
	DisableReplication  bool
	SequenceID          *int64        // nil: the producer's next
	DeliverAfter        time.Duration // wins over DeliverAt when > 0
	DeliverAt           time.Time
	Txn                 *api.TxnID // nil: no transaction
}

// Callback receives the outcome of a send, once: the message id (a
// messageid.ChunkMessageID for a chunked message) or an error.
type Callback func(id messageid.MessageID, err error)

// Done receives the outcome of a send, once, as Callback does, with the
// producer and the two values the send was given (SendAsyncDone): one Done
// serves every send, where a Callback that needs the send's own context
// (the caller's callback, its message) is a closure allocated per send.
type Done func(from *Producer, id messageid.MessageID, err error, a, b any)

// Receipted is told a message's id when the broker acknowledged it, on the
// connection's reader goroutine before the next frame is read and before
// the message's Callback runs (where the official client runs its
// interceptors' OnSendAcknowledgement): so a message received later from
// the same connection comes after it. It must not block.
type Receipted func(id messageid.MessageID)

// batchKey returns the key that key-based batching groups m by.
func batchKey(m *Message) string {
	if m.OrderingKey != "" {
		return m.OrderingKey
	}
	return m.Key
}

// deliverAt resolves m's DeliverAfter and DeliverAt against now; zero for
// none.
func deliverAt(m *Message, now time.Time) time.Time {
	if m.DeliverAfter > 0 {
		return now.Add(m.DeliverAfter)
	}
	return m.DeliverAt
}

// batchable reports whether m may share an entry with other messages:
// delayed delivery and replication settings are per entry, so such
// messages are sent on their own (as the Java client does).
func batchable(m *Message) bool {
	return m.DeliverAfter <= 0 && m.DeliverAt.IsZero() && len(m.ReplicationClusters) == 0 && !m.DisableReplication
}

// millis converts a time to Pulsar's epoch milliseconds.
func millis(t time.Time) uint64 { return uint64(t.UnixMilli()) }

// eventMillis is the event_time of t: none (false) for the zero time and
// for any time at or before the Unix epoch — time.Unix(0, 0) is the official
// client's "none", and an earlier time has no unsigned form.
func eventMillis(t time.Time) (uint64, bool) {
	if t.IsZero() || t.UnixMilli() <= 0 {
		return 0, false
	}
	return millis(t), true
}

// keyValues converts properties to the wire form, nil for none.
func keyValues(props map[string]string) []*proto.KeyValue {
	if len(props) == 0 {
		return nil
	}
	kvs := make([]*proto.KeyValue, 0, len(props))
	for k, v := range props {
		kvs = append(kvs, &proto.KeyValue{Key: gproto.String(k), Value: gproto.String(v)})
	}
	return kvs
}

// entryMetadata is the MessageMetadata of an entry holding m alone.
func (p *Producer) entryMetadata(m *Message, seq uint64, now time.Time, uncompressed int) *proto.MessageMetadata {
	md := &proto.MessageMetadata{
		ProducerName:     gproto.String(p.name),
		SequenceId:       gproto.Uint64(seq),
		PublishTime:      gproto.Uint64(millis(now)),
		Properties:       keyValues(m.Properties),
		UncompressedSize: gproto.Uint32(uint32(uncompressed)),
		ReplicateTo:      m.ReplicationClusters,
	}
	if m.DisableReplication {
		md.ReplicateTo = []string{"__local__"}
	}
	if p.opts.Compression != 0 {
		md.Compression = proto.CompressionType(p.opts.Compression).Enum()
	}
	if m.Key != "" {
		md.PartitionKey = gproto.String(m.Key)
	}
	if m.OrderingKey != "" {
		md.OrderingKey = []byte(m.OrderingKey)
	}
	if ms, ok := eventMillis(m.EventTime); ok {
		md.EventTime = gproto.Uint64(ms)
	}
	if at := deliverAt(m, now); !at.IsZero() {
		md.DeliverAtTime = gproto.Int64(at.UnixMilli())
	}
	return md
}

// singleMessage is the SingleMessageMetadata of m inside a batch, for
// wire.AppendSingleMessage, which encodes it without allocating.
func singleMessage(m *Message, seq uint64) wire.SingleMessage {
	sm := wire.SingleMessage{Properties: m.Properties, PartitionKey: m.Key, SequenceID: seq, HasSequenceID: true}
	if m.OrderingKey != "" {
		sm.OrderingKey = []byte(m.OrderingKey)
	}
	if ms, ok := eventMillis(m.EventTime); ok {
		sm.EventTime = ms
	}
	return sm
}
