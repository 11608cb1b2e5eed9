// Package compaction computes the compacted view of a topic as Pulsar's
// publishing-order two-phase compactor does (PublishingOrderCompactor over
// AbstractTwoPhaseCompactor and RawBatchConverter, Pulsar 4.x with
// topicCompactionRetainNullKey=false, its default):
//
//   - Phase one reads every entry up to the horizon and keeps, per key
//     (partition_key), the id of its latest message. A message whose
//     payload is empty (for a batch message, payload_size 0; for a single
//     one, uncompressed_size when set, else the payload's length) deletes
//     its key. Markers and messages without a key are left out.
//   - Phase two keeps each entry that holds a latest message: a single
//     message as it is; a batch re-encoded with the messages that are not
//     kept replaced by an empty message flagged compacted_out, so that the
//     batch indexes (and so the message ids) of the kept ones stay as they
//     were. A batch that does not decode (or is encrypted: Pulsar reads
//     only unencrypted batches) is handled as one message with the
//     entry's key; a batch it cannot decode is kept whole.
//
// The result keeps the original positions: a reader of the compacted view
// gets, in position order, the latest message of each key up to the
// horizon, then the rest of the topic. Compacting again reads the previous
// view followed by the entries after its horizon, as Pulsar's compactor
// reads its __compaction subscription with readCompacted.
//
// The package holds no state but the View it returns; the caller (the
// goroutine that owns the topic) owns the View.
package compaction
