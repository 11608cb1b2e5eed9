package pulsar

import (
	"fmt"
	"reflect"

	"github.com/pulsargo/sdk/messageid"
)

// MessageID identifies a message; it has the official Go client's method
// set. Ids of chunked messages are messageid.ChunkMessageID values that keep
// the first chunk: use messageid.FirstChunk to get it.
type MessageID = messageid.MessageID

// ChunkMessageID is the id of a chunked message: its first and last chunk.
type ChunkMessageID = messageid.ChunkMessageID

// EarliestMessageID returns the id meaning the oldest message of a topic.
func EarliestMessageID() MessageID { return messageid.Earliest() }

// LatestMessageID returns the id meaning after the newest message.
func LatestMessageID() MessageID { return messageid.Latest() }

// NewMessageID returns the id of a message by position, as the official
// client's NewMessageID.
func NewMessageID(ledgerID, entryID int64, batchIdx, partitionIdx int32) MessageID {
	return messageid.New(ledgerID, entryID, batchIdx, partitionIdx, 0)
}

// DeserializeMessageID reads an id written by MessageID.Serialize (of this
// SDK or any Pulsar client); chunk ids keep their first chunk.
func DeserializeMessageID(data []byte) (MessageID, error) { return messageid.Deserialize(data) }

// ownID returns id as one of this SDK's id values. An id of another type —
// implemented by the caller, or by another client — is read through its
// Serialize method only, as the official Go client reads foreign ids (its
// other methods may not even work); a chunk id keeps its first chunk.
func ownID(id MessageID) (MessageID, error) {
	switch v := id.(type) {
	case nil:
		return nil, fmt.Errorf("%w: nil message id", ErrInvalidOptions)
	case messageid.ID, messageid.ChunkMessageID:
		return v, nil
	case *messageid.ID:
		if v != nil {
			return *v, nil
		}
	case *messageid.ChunkMessageID:
		if v != nil {
			return *v, nil
		}
	}
	if rv := reflect.ValueOf(id); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, fmt.Errorf("%w: nil message id", ErrInvalidOptions)
	}
	back, err := messageid.Deserialize(id.Serialize())
	if err != nil {
		return nil, fmt.Errorf("%w: message id of type %T: %w", ErrInvalidOptions, id, err)
	}
	return back, nil
}

// isEdge reports whether id is EarliestMessageID or LatestMessageID (which
// apply to every partition).
func isEdge(id MessageID) bool {
	first := messageid.FirstChunk(id)
	return first.LedgerID() < 0 || first == messageid.Latest()
}
