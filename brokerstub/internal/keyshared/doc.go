// Package keyshared holds the pure logic of brokerstub's Key_Shared
// dispatcher: sticky keys and their hashes, the consumer selectors, the
// draining-hashes tracker, the replay queue and the per-entry routing
// decisions with their look-ahead limit. It does no I/O and keeps no
// clock: the broker reads entries, asks where each goes, and sends it.
//
// # Hashes and selectors
//
// A message's sticky key is its ordering key, else its partition key
// (base64-decoded when flagged), else "<producer>-<sequence id>" (a batch
// is routed by its outer metadata). Its hash is Murmur3_32 (x86, seed 0)
// masked to 31 bits, mapped into the selector's key hash range by modulo,
// with 0 (meaning "not set") moved to 1 — exactly as Pulsar 4.x. Three
// selectors map hashes to consumers, as Pulsar's: consistent hashing with
// replica points (the default for AUTO_SPLIT, range [1, 65535]), auto-split
// hash ranges (AUTO_SPLIT with consistent hashing off, [0, 65535]) and the
// fixed ranges of STICKY consumers, which must not overlap.
//
// # Ordering (PIP-379)
//
// In the default ordered mode a hash is pending (delivered, unacknowledged)
// at one consumer at a time:
//
//   - When a consumer joins or leaves and a hash moves away from a consumer
//     that holds entries of it, the hash is draining there: no other
//     consumer gets an entry of it until the holder has acknowledged them
//     all or left (AUTO_SPLIT only; STICKY ranges do not move).
//   - Entries waiting for redelivery go before newer entries of their hash:
//     every pass offers the whole replay queue, in order, before it reads a
//     new entry, and an entry of it that cannot go now holds its hash back
//     for the rest of the pass, so no newer entry of the hash is sent before
//     it (apache/pulsar#10762). A consumer that leaves puts what it held
//     back into the queue, so it is redelivered in order before anything
//     newer of its keys.
//   - A consumer without permits holds back only its own hashes: the entry
//     joins the replay queue and its hash is blocked for the rest of the
//     pass; dispatch carries on with other hashes. Reading ahead stops when
//     the replay queue reaches min(per-consumer limit × consumers,
//     per-subscription limit) (2000 and 20000 by default, as Pulsar 4.x).
//
// With allowOutOfOrderDelivery only the selector routes: no draining and
// no holding back behind the replay queue, as in Pulsar.
//
// Where the stub is stricter than Pulsar: a redelivery of specific messages
// (negative ack, ack timeout) keeps its hash, so it too goes before newer
// entries of its key (Pulsar may lose the hash there, an upstream TODO);
// and a draining hash's count is reset to what its holder really holds when
// it moves again, where Pulsar adds to it and can keep it blocked.
//
// # Chunked messages
//
// All chunks of one chunked message go to the consumer that received its
// first chunk, also while hash ranges move: later chunks follow the first
// regardless of the selector, and in ordered AUTO_SPLIT mode every entry of
// a hash goes to a consumer holding an unfinished chunked message of it,
// until its last chunk is sent (otherwise the message could never complete
// and the hash would stay draining forever). No official Pulsar broker does
// this for Key_Shared — Pulsar's Shared dispatcher pins chunks to a
// consumer, its Key_Shared dispatcher does not.
package keyshared
