// Package consumer is the engine of one consumer on one topic or partition:
// it subscribes, grants flow permits, parses what the broker delivers
// (decompression, batches with their ack sets, chunk reassembly with one
// chunk.Assembler), tracks acknowledgments (individual, cumulative,
// batch-index; grouped, optionally with receipts), redelivers on nack and
// ack timeout, seeks, filters by a start id, and reconnects with backoff.
//
// Package pulsar builds its Consumer and Reader from one Engine per
// partition; the Engine knows nothing of the public API and delivers
// *Message values converted by a caller-supplied function onto a
// caller-supplied channel, or lends its queue to an Outbox shared by the
// engines of a consumer, from which receivers take them without a
// goroutine switch per message.
//
// # Concurrency
//
// Each Engine owns its state in one goroutine (the loop). The connection's
// reader goroutine only queues received frames for it, and the public
// methods run closures on it; nothing blocks the connection, and no state
// is shared under locks but what an Outbox's receivers take (lend.go).
//
// # Flow control
//
// The broker is given ReceiverQueueSize permits at subscribe and the
// consumed ones back once half the queue is free. With AutoScaleQueue the
// queue starts at one message and doubles (up to ReceiverQueueSize) when a
// message is handed out after every permit was in use; with ZeroQueue the
// broker gets one permit per waiting Receive (Engine.Want), and another
// when what it sent brought no message (a chunk of an incomplete message,
// one filtered out or diverted).
//
// With Options.Memory, the bytes waiting in the queue count against a
// budget shared by the engines of a client (see Memory): an entry whose
// declared uncompressed size does not fit is parked compressed instead of
// decompressed, and permits are withheld while the budget is used up and
// the queue is not empty.
//
// # Redelivery
//
// One tracking record stands for an entry however often the broker
// delivers it (nack, ack timeout, reconnect): a redelivered batch joins the
// record of its earlier copy, so its messages acknowledged already are not
// delivered again, nor those whose earlier copy still waits in the queue;
// a record wholly acknowledged withdraws the copies still queued. After a
// seek, what the broker delivers gets new records. On Shared and
// Key_Shared a message given back (nack, ack timeout) may be redelivered
// to another consumer, so its record is let go instead of waiting for good
// (a plain message's at once, a batch's once each of its messages is
// acknowledged or given back); a batch that then comes back here is
// delivered whole.
//
// # Chunked messages
//
// A chunked message is delivered once all its chunks arrived, as one
// payload with a messageid.ChunkMessageID. Acknowledging it acknowledges
// every chunk. A Seek to a chunk id moves to its first chunk and delivers
// the whole message next whatever StartInclusive says; a StartID that is
// a chunk id honours StartInclusive. For a chunk id this engine delivered, it knows the ids of
// every chunk. For a chunk id it never delivered (deserialized, or returned
// by a producer's Send), the entries between the first and the last chunk
// may belong to other messages, so acknowledging that range would lose
// data: the engine instead remembers the id and, when the message's chunks
// arrive (they do, since they are unacknowledged: redelivered after a
// reconnect, or not delivered yet), acknowledges every one of them without
// delivering the message. A message already waiting in the receiver queue
// is acknowledged at once.
//
// Incomplete messages that the Assembler gives up on (evicted by the count
// or byte limit, expired) are negatively acknowledged by default, so the
// broker redelivers them; ChunkAck acknowledges them instead. Refused
// chunks whose message cannot ever be assembled (corrupt sizes, invalid
// metadata) are acknowledged as corrupt, see below.
//
// # Bad input
//
// A message that cannot be parsed — bad checksum or metadata, a payload
// that does not decompress, a batch whose count does not match its
// payload, chunks whose sizes lie — is logged at Warn level, acknowledged
// with the matching validation error (as Pulsar's clients do: redelivery
// would fail the same way) and skipped; readers skip without
// acknowledging. Bits of a batch's ack_set beyond the batch size are
// ignored (and logged). The engine keeps going.
package consumer
