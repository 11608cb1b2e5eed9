// Package messageid holds the identifiers of Pulsar messages: the position of
// a plain or batched message (ID) and the id of a chunked message
// (ChunkMessageID), which names both its first and its last chunk.
//
// Both satisfy MessageID, whose method set is the official Go client's, so
// code written against that interface keeps working. Unlike the official
// client, a ChunkMessageID keeps its first chunk everywhere: Serialize and
// Deserialize round-trip it, String and Parse round-trip it, and FirstChunk
// returns the position that a seek or a reader must start from.
//
//	id := messageid.New(12, 7, -1, 0, 0)
//	b := id.Serialize()
//	back, _ := messageid.Deserialize(b)
//	fmt.Println(messageid.Compare(id, back)) // 0
package messageid

import (
	"errors"
	"fmt"
	"math"
)

// MessageID identifies a message in a topic. Its method set is the official
// Go client's MessageID, so that code written against that interface
// compiles unchanged.
type MessageID interface {
	// Serialize returns the id in Pulsar's MessageIdData wire form.
	Serialize() []byte
	// LedgerID returns the ledger holding the message (for a chunked
	// message: holding its last chunk).
	LedgerID() int64
	// EntryID returns the entry within the ledger.
	EntryID() int64
	// BatchIdx returns the index within a batch entry, or -1 for none.
	BatchIdx() int32
	// PartitionIdx returns the partition index, or -1 for a topic without
	// partitions.
	PartitionIdx() int32
	// BatchSize returns the number of messages in the batch entry, or 0 when
	// unknown or not batched.
	BatchSize() int32
	// String returns the id in the text form that Parse reads.
	String() string
}

// ErrInvalid is wrapped by every error about a malformed id (bytes, text or
// field values); use errors.Is to test for it.
var ErrInvalid = errors.New("messageid: invalid message id")

// ID is the position of one message: ledger, entry and, inside a batch entry,
// the batch index. It is a comparable value; the zero value is ledger 0,
// entry 0, batch index 0 (use New for an unbatched id).
type ID struct {
	ledger    int64
	entry     int64
	batchIdx  int32
	partition int32
	batchSize int32
}

// New returns the id of the message at ledger:entry. batchIdx is -1 for a
// message that is not part of a batch; partition is -1 for a topic without
// partitions; batchSize is 0 when not batched or unknown.
func New(ledger, entry int64, batchIdx, partition, batchSize int32) ID {
	return ID{ledger: ledger, entry: entry, batchIdx: batchIdx, partition: partition, batchSize: batchSize}
}

var (
	earliest = ID{ledger: -1, entry: -1, batchIdx: -1, partition: -1}
	latest   = ID{ledger: math.MaxInt64, entry: math.MaxInt64, batchIdx: -1, partition: -1}
)

// Earliest returns the id that means "the oldest message of the topic"
// (ledger -1, entry -1), as Pulsar defines it.
func Earliest() ID { return earliest }

// Latest returns the id that means "after the newest message of the topic"
// (ledger and entry math.MaxInt64), as Pulsar defines it.
func Latest() ID { return latest }

// LedgerID returns the ledger id.
func (id ID) LedgerID() int64 { return id.ledger }

// EntryID returns the entry id.
func (id ID) EntryID() int64 { return id.entry }

// BatchIdx returns the batch index, or -1 when the message is not batched.
func (id ID) BatchIdx() int32 { return id.batchIdx }

// PartitionIdx returns the partition index, or -1.
func (id ID) PartitionIdx() int32 { return id.partition }

// BatchSize returns the size of the batch the message belongs to, or 0.
func (id ID) BatchSize() int32 { return id.batchSize }

// IsBatch reports whether the id points inside a batch entry.
func (id ID) IsBatch() bool { return id.batchIdx >= 0 }

// Entry returns the id of the whole entry: the same position without a batch
// index or batch size.
func (id ID) Entry() ID {
	return ID{ledger: id.ledger, entry: id.entry, batchIdx: -1, partition: id.partition}
}

// WithPartition returns a copy of the id with the given partition index.
func (id ID) WithPartition(partition int32) ID {
	id.partition = partition
	return id
}

// String returns "ledger:entry:partition", followed by ":batchIndex" for a
// batched message (Apache Pulsar's Java form). The batch size is not part of
// the text; Serialize keeps it.
func (id ID) String() string {
	if id.batchIdx >= 0 {
		return fmt.Sprintf("%d:%d:%d:%d", id.ledger, id.entry, id.partition, id.batchIdx)
	}
	return fmt.Sprintf("%d:%d:%d", id.ledger, id.entry, id.partition)
}

// ChunkMessageID is the id of a message that was sent in chunks: the ids of
// its first and last chunk. LedgerID, EntryID, BatchIdx and PartitionIdx
// report the last chunk (as the official clients do); seeks, readers and acks
// given a ChunkMessageID act on the whole message, from its first chunk.
type ChunkMessageID struct {
	first ID
	last  ID
}

// NewChunk returns the id of a chunked message whose chunks run from first
// to last.
func NewChunk(first, last ID) ChunkMessageID { return ChunkMessageID{first: first, last: last} }

// FirstChunkID returns the id of the message's first chunk.
func (c ChunkMessageID) FirstChunkID() ID { return c.first }

// LastChunkID returns the id of the message's last chunk.
func (c ChunkMessageID) LastChunkID() ID { return c.last }

// LedgerID returns the last chunk's ledger id.
func (c ChunkMessageID) LedgerID() int64 { return c.last.ledger }

// EntryID returns the last chunk's entry id.
func (c ChunkMessageID) EntryID() int64 { return c.last.entry }

// BatchIdx returns the last chunk's batch index (-1: chunks are not batched).
func (c ChunkMessageID) BatchIdx() int32 { return c.last.batchIdx }

// PartitionIdx returns the partition index.
func (c ChunkMessageID) PartitionIdx() int32 { return c.last.partition }

// BatchSize returns the last chunk's batch size (0).
func (c ChunkMessageID) BatchSize() int32 { return c.last.batchSize }

// String returns "<first>;<last>", each in ID's text form.
func (c ChunkMessageID) String() string { return c.first.String() + ";" + c.last.String() }

// FirstChunk returns where a message starts: the first chunk's id for a
// ChunkMessageID, the id itself (as an ID) for anything else.
func FirstChunk(id MessageID) ID {
	if c, ok := id.(ChunkMessageID); ok {
		return c.first
	}
	return Of(id)
}

// LastChunk returns the id of a chunked message's last chunk, or the id
// itself (as an ID) for anything else.
func LastChunk(id MessageID) ID {
	if c, ok := id.(ChunkMessageID); ok {
		return c.last
	}
	return Of(id)
}

// Of converts any MessageID to an ID by its getters. A ChunkMessageID becomes
// its last chunk's id; use FirstChunk where the start of a message matters.
func Of(id MessageID) ID {
	switch v := id.(type) {
	case ID:
		return v
	case *ID:
		return *v
	case ChunkMessageID:
		return v.last
	}
	return ID{ledger: id.LedgerID(), entry: id.EntryID(), batchIdx: id.BatchIdx(),
		partition: id.PartitionIdx(), batchSize: id.BatchSize()}
}

// Equal reports whether a and b name the same message: the same position
// (ledger, entry, batch index) and, for chunk ids, the same first chunk.
// Partition and batch size are not compared, as in Compare.
func Equal(a, b MessageID) bool {
	if Compare(a, b) != 0 {
		return false
	}
	ca, aok := a.(ChunkMessageID)
	cb, bok := b.(ChunkMessageID)
	if aok != bok {
		return false
	}
	return !aok || Compare(ca.first, cb.first) == 0
}

// Compare orders two ids by position: ledger, then entry, then batch index,
// where within one entry any batch index comes before the id of the whole
// entry (as Pulsar orders batch-index acks). A chunk id is ordered by its
// last chunk. The partition is not compared. It returns -1, 0 or +1.
func Compare(a, b MessageID) int {
	switch {
	case a.LedgerID() != b.LedgerID():
		return cmpInt(a.LedgerID(), b.LedgerID())
	case a.EntryID() != b.EntryID():
		return cmpInt(a.EntryID(), b.EntryID())
	}
	ab, bb := a.BatchIdx(), b.BatchIdx()
	switch {
	case ab < 0 && bb < 0:
		return 0
	case ab < 0:
		return 1
	case bb < 0:
		return -1
	}
	return cmpInt(int64(ab), int64(bb))
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
