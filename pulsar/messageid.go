package pulsar

import (
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
