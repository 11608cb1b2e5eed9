package console

import "encoding/json"

// The views are what the console's pages draw: plain data the broker fills
// from its topics' state (read through each topic's goroutine) and the
// console sends as JSON. Positions are "ledger:entry" strings, as Pulsar's
// admin API writes them.

// Whoami is who the console's user is to the broker.
type Whoami struct {
	// Role is the authenticated role ("" with authentication off and no
	// anonymous role).
	Role string `json:"role"`
	// Authentication and Authorization say whether the broker checks them.
	Authentication bool `json:"authentication"`
	Authorization  bool `json:"authorization"`
	// SuperUser is true for a super-user role, and for everyone with
	// authorization off.
	SuperUser bool `json:"superUser"`
	// TenantAdmin lists the tenants the role administers.
	TenantAdmin []string `json:"tenantAdmin,omitempty"`
}

// Refusal is something the page does not show because the role may not
// do the operation that reads it.
type Refusal struct {
	What      string `json:"what"`
	Operation string `json:"operation"`
	Reason    string `json:"reason"`
}

// Overview is page 1: tenants, namespaces and their topics.
type Overview struct {
	Who     Whoami    `json:"who"`
	Tenants []Tenant  `json:"tenants"`
	Refused []Refusal `json:"refused,omitempty"`
}

// Tenant is a tenant and its namespaces.
type Tenant struct {
	Name        string      `json:"name"`
	AdminRoles  []string    `json:"adminRoles,omitempty"`
	Namespaces  []Namespace `json:"namespaces"`
	Unreachable bool        `json:"unreachable,omitempty"`
}

// Namespace is a namespace, the policies set on it and its topics.
type Namespace struct {
	Name string `json:"name"`
	// Policies are the namespace's policies that are set (Pulsar's
	// field names and JSON), nil when refused.
	Policies map[string]json.RawMessage `json:"policies,omitempty"`
	// PoliciesRefused says why Policies is empty, "" when it is not.
	PoliciesRefused string         `json:"policiesRefused,omitempty"`
	Topics          []TopicSummary `json:"topics"`
}

// TopicSummary is a topic's line on the overview.
type TopicSummary struct {
	Name          string `json:"name"`
	Loaded        bool   `json:"loaded"`
	Partitioned   int    `json:"partitions,omitempty"`
	Producers     int    `json:"producers"`
	Subscriptions int    `json:"subscriptions"`
	Consumers     int    `json:"consumers"`
	MsgIn         int64  `json:"msgIn"`
	MsgOut        int64  `json:"msgOut"`
	// RateIn and RateOut are messages per second over the last second
	// the console watched (0 on a single read).
	RateIn      float64 `json:"rateIn"`
	RateOut     float64 `json:"rateOut"`
	Backlog     int64   `json:"backlog"`
	StorageSize int64   `json:"storageSize"`
	Entries     int     `json:"entries"`
	// Policies are the topic-level policies set on it.
	Policies map[string]json.RawMessage `json:"policies,omitempty"`
}

// Topic is page 2.
type Topic struct {
	Name          string                     `json:"name"`
	Terminated    bool                       `json:"terminated"`
	MsgIn         int64                      `json:"msgIn"`
	BytesIn       int64                      `json:"bytesIn"`
	MsgOut        int64                      `json:"msgOut"`
	RateIn        float64                    `json:"rateIn"`
	RateOut       float64                    `json:"rateOut"`
	StorageSize   int64                      `json:"storageSize"`
	Backlog       int64                      `json:"backlog"`
	Schema        string                     `json:"schema,omitempty"`
	Policies      map[string]json.RawMessage `json:"policies,omitempty"`
	Producers     []Producer                 `json:"producers"`
	Waiting       []string                   `json:"waitingProducers,omitempty"`
	Subscriptions []Subscription             `json:"subscriptions"`
	Ledgers       []Ledger                   `json:"ledgers"`
	First         string                     `json:"first,omitempty"`
	Last          string                     `json:"last,omitempty"`
}

// Producer is a producer attached to a topic.
type Producer struct {
	ID         uint64  `json:"id"`
	Name       string  `json:"name"`
	AccessMode string  `json:"accessMode"`
	Address    string  `json:"address"`
	MsgIn      int64   `json:"msgIn"`
	BytesIn    int64   `json:"bytesIn"`
	RateIn     float64 `json:"rateIn"`
}

// Ledger is one ledger of a topic.
type Ledger struct {
	ID      int64 `json:"id"`
	Entries int   `json:"entries"`
	Size    int64 `json:"size"`
	Current bool  `json:"current"`
}

// Subscription is a subscription's line on the topic page, and the
// heading of page 3.
type Subscription struct {
	Name         string     `json:"name"`
	Type         string     `json:"type"`
	Durable      bool       `json:"durable"`
	Backlog      int64      `json:"backlog"`
	Unacked      int64      `json:"unacked"`
	Redeliveries int64      `json:"redeliveries"`
	MsgOut       int64      `json:"msgOut"`
	RateOut      float64    `json:"rateOut"`
	MarkDelete   string     `json:"markDelete"`
	ReadPosition string     `json:"readPosition"`
	Blocked      bool       `json:"blocked"`
	Active       string     `json:"active,omitempty"`
	Consumers    []Consumer `json:"consumers"`
}

// Consumer is a consumer of a subscription.
type Consumer struct {
	ID       uint64 `json:"id"`
	Name     string `json:"name"`
	Address  string `json:"address,omitempty"`
	Permits  int64  `json:"permits"`
	Unacked  int64  `json:"unacked"`
	Pending  int    `json:"pendingEntries"`
	Blocked  bool   `json:"blocked"`
	Priority int32  `json:"priority"`
}

// Cursor is page 3: a subscription and its cursor drawn as a line of
// entries from the mark-delete position on.
type Cursor struct {
	Topic        string       `json:"topic"`
	Subscription Subscription `json:"subscription"`
	// Persisted is the mark-delete position last flushed to the store:
	// where a Crash would resume.
	Persisted string `json:"persisted"`
	// AckedRanges are the acknowledged ranges after mark-delete, each
	// [first, last] inclusive.
	AckedRanges [][2]string `json:"ackedRanges"`
	// Entries are the entries after mark-delete, at most Limit of them.
	Entries []CursorEntry `json:"entries"`
	// More is true when entries beyond Limit were left out.
	More  bool `json:"more"`
	Limit int  `json:"limit"`
	// Replay and Delayed count the replay set and the delayed entries.
	Replay  int `json:"replay"`
	Delayed int `json:"delayed"`
	// PendingAcks counts the transactional acks not yet committed.
	PendingAcks int `json:"pendingAcks"`
}

// CursorEntry is one entry's state in a cursor's line.
type CursorEntry struct {
	Pos string `json:"pos"`
	// State is "acked", "pending" (delivered, not acknowledged),
	// "replay" (queued for redelivery), "delayed", "unread" (not
	// dispatched yet), "held" (read, neither pending nor queued), or
	// "partial" (a batch acknowledged in part, not delivered now).
	State string `json:"state"`
	// Consumer holds a pending entry.
	Consumer string `json:"consumer,omitempty"`
	// Batch is the number of messages in a batch entry (0: not a batch);
	// AckedIndexes are the acknowledged indexes of a partial one.
	Batch        int32   `json:"batch,omitempty"`
	AckedIndexes []int   `json:"ackedIndexes,omitempty"`
	Key          string  `json:"key,omitempty"`
	Hash         *int32  `json:"hash,omitempty"`
	DeliverAt    int64   `json:"deliverAt,omitempty"`
	Redelivered  uint32  `json:"redelivered,omitempty"`
	Txn          string  `json:"txn,omitempty"`
	TxnAcks      []int64 `json:"txnAckIndexes,omitempty"`
	TxnAck       string  `json:"txnAck,omitempty"`
	Chunk        string  `json:"chunk,omitempty"`
}

// KeyShared is page 4: a Key_Shared subscription's dispatcher.
type KeyShared struct {
	Topic          string `json:"topic"`
	Subscription   string `json:"subscription"`
	Mode           string `json:"mode"`
	Selector       string `json:"selector"`
	OutOfOrder     bool   `json:"allowOutOfOrderDelivery"`
	RangeStart     int32  `json:"rangeStart"`
	RangeEnd       int32  `json:"rangeEnd"`
	ReadPosition   string `json:"readPosition"`
	MarkDelete     string `json:"markDelete"`
	ReplaySize     int    `json:"replaySize"`
	LookAheadLimit int    `json:"lookAheadLimit"`
	// NormalReadStopped says why dispatch reads no new entries, "" when
	// it does.
	NormalReadStopped string        `json:"normalReadStopped,omitempty"`
	Consumers         []KSConsumer  `json:"consumers"`
	Draining          []Draining    `json:"draining"`
	HeldBack          []HeldBack    `json:"heldBack"`
	HeldBackMore      bool          `json:"heldBackMore"`
	Unassigned        [][2]int32    `json:"unassigned,omitempty"`
	Ranges            []RangeOwner  `json:"ranges"`
	Hashes            []HashExample `json:"hashes,omitempty"`
}

// KSConsumer is a consumer of a Key_Shared subscription.
type KSConsumer struct {
	ID      uint64 `json:"id"`
	Name    string `json:"name"`
	Permits int64  `json:"permits"`
	Unacked int64  `json:"unacked"`
	Pending int    `json:"pendingEntries"`
	// Share is the part of the hash range the consumer owns, 0 to 1.
	Share    float64 `json:"share"`
	Draining int     `json:"draining"`
}

// RangeOwner is a hash range and the consumer that owns it.
type RangeOwner struct {
	Start    int32  `json:"start"`
	End      int32  `json:"end"`
	Consumer uint64 `json:"consumer"`
	Name     string `json:"name"`
}

// Draining is a hash that moved to another consumer while its old owner
// still holds entries of it (PIP-379): the new owner waits on the old.
type Draining struct {
	Hash       int32  `json:"hash"`
	HeldBy     string `json:"heldBy"`
	HeldByID   uint64 `json:"heldById"`
	Owner      string `json:"owner,omitempty"`
	OwnerID    uint64 `json:"ownerId,omitempty"`
	Unacked    int    `json:"unacked"`
	Blocked    int    `json:"blocked"`
	SampleKeys string `json:"keys,omitempty"`
}

// HeldBack is an entry of the replay set not delivered, and why.
type HeldBack struct {
	Pos    string `json:"pos"`
	Hash   int32  `json:"hash"`
	Key    string `json:"key,omitempty"`
	Reason string `json:"reason"`
}

// HashExample is a key seen in the subscription's entries and the hash
// and consumer it maps to.
type HashExample struct {
	Key      string `json:"key"`
	Hash     int32  `json:"hash"`
	Consumer string `json:"consumer"`
}

// Messages is page 5: entries of a topic from a position on.
type Messages struct {
	Topic  string `json:"topic"`
	Schema string `json:"schema,omitempty"`
	// SchemaData is the schema's definition (Avro or JSON schemas), read
	// by the decoder.
	SchemaData []byte  `json:"-"`
	From       string  `json:"from"`
	Next       string  `json:"next,omitempty"`
	Prev       string  `json:"prev,omitempty"`
	First      string  `json:"first,omitempty"`
	Last       string  `json:"last,omitempty"`
	Entries    []Entry `json:"entries"`
}

// Entry is one stored entry and its messages.
type Entry struct {
	Pos         string            `json:"pos"`
	Size        int               `json:"size"`
	PublishTime int64             `json:"publishTime"`
	Producer    string            `json:"producer,omitempty"`
	Sequence    uint64            `json:"sequence"`
	Compression string            `json:"compression,omitempty"`
	Key         string            `json:"key,omitempty"`
	Properties  map[string]string `json:"properties,omitempty"`
	// Batch is the number of messages of a batch entry, 0 for a single
	// message.
	Batch int32 `json:"batch,omitempty"`
	// Chunk describes a chunk: "uuid chunk i of n, total size".
	Chunk     *Chunk    `json:"chunk,omitempty"`
	DeliverAt int64     `json:"deliverAt,omitempty"`
	Txn       string    `json:"txn,omitempty"`
	Marker    string    `json:"marker,omitempty"`
	Encrypted bool      `json:"encrypted,omitempty"`
	Error     string    `json:"error,omitempty"`
	Messages  []Message `json:"messages"`
}

// Chunk is a chunk's header.
type Chunk struct {
	UUID      string `json:"uuid"`
	ID        int32  `json:"id"`
	Of        int32  `json:"of"`
	TotalSize int32  `json:"totalSize"`
}

// Message is one message of an entry, its payload decoded by the topic's
// schema where the console can.
type Message struct {
	Index      int               `json:"index"`
	Key        string            `json:"key,omitempty"`
	Properties map[string]string `json:"properties,omitempty"`
	Size       int               `json:"size"`
	// Value is the decoded payload; Decoding says how it was read
	// ("json", "avro", "string", "int64", ... or "bytes" in hex).
	Value    string `json:"value"`
	Decoding string `json:"decoding"`
	Null     bool   `json:"null,omitempty"`
	// Raw is the payload, uncompressed; the console decodes it.
	Raw []byte `json:"-"`
}
