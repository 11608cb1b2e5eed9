// Package chunk is the I/O-free core of Pulsar's large-message support
// (PIP-37 chunking): splitting a payload into chunks and reassembling them,
// within bounded memory. Its API uses only its own types, package messageid
// and the standard library (no protobuf types), so that any program can
// split and reassemble with it.
//
// In this module the producer engine (internal/producer, behind
// pulsar.Producer) splits with it, and the consumer engine
// (internal/consumer, behind pulsar.Consumer and pulsar.Reader) keeps one
// Assembler per partition. Both convert between the wire's MessageMetadata
// and a Header in one place, internal/wire's ChunkHeader and
// SetChunkHeader. brokerstub does not use this package: a broker stores
// and dispatches chunks as ordinary entries, and reads only the chunk
// fields its Key_Shared dispatcher needs.
//
// # Splitting
//
// A producer splits a message's compressed payload with Split or NewPlan.
// Every chunk has a Header with the same UUID ("<producer>-<sequence>"),
// NumChunks and TotalSize, its own ChunkID, and a sub-slice of the payload:
// nothing of the payload's size is copied or allocated. PayloadSize gives the
// chunk payload size for a broker's max message size and MetadataOverhead
// the room the chunk fields take in the metadata; the producer writes each
// Header into its chunk's metadata (uuid, chunk_id, num_chunks_from_msg,
// total_chunk_msg_size).
//
// # Reassembling
//
// A consumer feeds received chunks, in arrival order, to an Assembler as
// Incoming values (the Header read back from the metadata, the payload, the
// chunk's message id). The Assembler returns each complete message in one
// buffer of exactly its total size (one copy per chunk, nothing else
// proportional to the payload) with a messageid.ChunkMessageID and the ids of
// all its chunks. It enforces a limit on incomplete messages (evicting the
// oldest), a byte budget over their buffers and a per-message size cap (both
// checked before allocating), and expiry of incomplete messages by an
// injected clock. Everything it gives up on is reported with the ids of the
// chunks concerned, so that the caller can acknowledge or negatively
// acknowledge them; bad input is refused with a typed *Error, never a panic.
//
// # Example
//
//	chunks, err := chunk.Split("producer-1", 42, payload, 5<<20)
//	if err != nil { ... }
//	a := chunk.NewAssembler(chunk.Options{}) // 100 messages, 256 MiB, 60 s
//	for i, c := range chunks { // on the receiving side, in arrival order
//		id := messageid.New(ledger, int64(i), -1, -1, 0)
//		msg, discarded, err := a.Add(chunk.Incoming{Header: c.Header, Payload: c.Payload, ID: id})
//		// ack or nack the ChunkIDs of each discarded; err refused this chunk
//		if msg != nil {
//			// msg.Payload is the whole payload; msg.ID names the message
//		}
//	}
package chunk
