package api

import "time"

// ProducerMessage is a message to send. Its fields mirror the official Go
// client's.
type ProducerMessage struct {
	// Payload is the message body.
	Payload []byte
	// Value is the message body before encoding, for producers with a
	// Schema: the producer encodes it with Schema, else with the producer's
	// schema. Value and Payload are mutually exclusive.
	Value any
	// Key is the partition key: it routes the message to a partition and,
	// without OrderingKey, to a Key_Shared consumer.
	Key string
	// OrderingKey, when set, overrides Key for Key_Shared routing and
	// key-based batching.
	OrderingKey string
	// Properties are application-defined headers.
	Properties map[string]string
	// EventTime is the application's time of the event. The zero time,
	// time.Unix(0, 0) (the official client's "none") and any earlier time
	// mean unset.
	EventTime time.Time
	// ReplicationClusters restricts geo-replication to these clusters.
	ReplicationClusters []string
	// DisableReplication keeps the message in the local cluster.
	DisableReplication bool
	// SequenceID, when set, overrides the producer's sequence id.
	SequenceID *int64
	// DeliverAfter asks the broker to deliver the message no earlier than
	// this long after sending (Shared and Key_Shared subscriptions).
	DeliverAfter time.Duration
	// DeliverAt asks the broker to deliver the message no earlier than this
	// time. DeliverAfter wins when both are set.
	DeliverAt time.Time
	// Schema, when set, encodes Value instead of the producer's schema: the
	// producer registers it (GET_OR_CREATE_SCHEMA) and tags the message
	// with its version, unless ProducerOptions.DisableMultiSchema refuses a
	// schema other than the producer's.
	Schema Schema
	// Transaction, when set, sends the message inside it: it is not
	// visible to consumers before the transaction commits, and never if it
	// aborts. Default nil: no transaction.
	Transaction Transaction
}
