// Package chunk is the I/O-free core of Pulsar's large-message support
// (PIP-37 chunking), shared by the producer, the consumer and the broker
// stub.
//
// A producer splits a message's compressed payload into chunks with Split or
// NewPlan: every chunk carries the same uuid ("<producer>-<sequence>"),
// num_chunks_from_msg and total_chunk_msg_size, its own chunk_id, and a
// sub-slice of the payload — nothing of the payload's size is copied or
// allocated. PayloadSize gives the chunk payload size for a broker's max
// message size, and Chunk.Apply writes a chunk's fields into the metadata.
//
// A consumer feeds received chunks, in arrival order, to an Assembler, which
// returns each complete message in one buffer of exactly its total size
// (one copy per chunk, nothing else proportional to the payload) with a
// messageid.ChunkMessageID and the ids of all its chunks. The Assembler
// enforces a limit on incomplete messages (evicting the oldest), a byte
// budget over their buffers and a per-message size cap (both checked before
// allocating), and expiry of incomplete messages by an injected clock.
// Everything it gives up on is reported with the ids of the chunks concerned,
// so that the caller can acknowledge or negatively acknowledge them; bad
// input is refused with a typed *Error, never a panic.
package chunk
