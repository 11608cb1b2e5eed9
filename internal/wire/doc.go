// Package wire is the frame codec of the Apache Pulsar binary protocol, shared
// by the client (package pulsar) and the in-process broker (brokerstub).
//
// Every frame starts with a 4-byte big-endian TOTAL_SIZE that counts the bytes
// after it. A simple frame carries one command:
//
//	[TOTAL_SIZE uint32][CMD_SIZE uint32][BaseCommand]
//
// A payload frame (SEND from a producer, MESSAGE to a consumer) adds message
// metadata and the message payload after the command:
//
//	[TOTAL_SIZE][CMD_SIZE][BaseCommand]
//	[0x0e02][BROKER_ENTRY_METADATA_SIZE uint32][BrokerEntryMetadata]   optional
//	[0x0e01][CHECKSUM uint32]                                           optional
//	[METADATA_SIZE uint32][MessageMetadata][PAYLOAD]
//
// CHECKSUM is the CRC32C (Castagnoli) of everything after it, i.e. of
// METADATA_SIZE, MessageMetadata and PAYLOAD. The broker-entry-metadata
// section is only sent by a broker to clients that announced
// supports_broker_entry_metadata; the checksum section is always written by
// this package (as by the official clients) and may be missing only in frames
// from old peers, which DecodeFrame accepts.
//
// The payload of an entry whose metadata has num_messages_in_batch set is a
// batch: num_messages_in_batch repetitions of
//
//	[SINGLE_METADATA_SIZE uint32][SingleMessageMetadata][BODY of payload_size bytes]
//
// (see AppendBatchEntry and SplitBatch). Compression, if any, applies to the
// whole payload and is not this package's concern. ChunkHeader and
// SetChunkHeader convert a chunk's metadata fields to and from the
// chunk.Header that package chunk splits and reassembles with.
//
// Encoding appends to a caller-owned slice and never copies a payload unless
// asked to (AppendPayloadHeader writes everything up to the payload, so that
// the caller can send header and payload with net.Buffers). Decoding checks
// every size against a limit or against the bytes actually present before
// using it, never panics, and reports problems as *FrameError values that
// match one of the sentinel errors (ErrTruncated, ErrFrameTooLarge, ErrBadSize,
// ErrChecksum, ErrMalformed, ErrUnknownCommand, ErrBadBatch) with errors.Is.
package wire
