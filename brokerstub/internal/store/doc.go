// Package store is the persistence behind brokerstub: topic entries, the
// per-topic ledger id counter, cursor state and partitioned-topic metadata.
//
// Two implementations satisfy [Store]:
//
//   - [NewMemory] keeps everything in memory. It lives as long as the Broker
//     object that owns it, so a broker Restart() or Crash() that reuses the
//     same store finds every appended entry and every saved cursor again.
//   - [OpenBolt] keeps everything in one go.etcd.io/bbolt file, so the data
//     also survives the end of the process, including kill -9: every write
//     is in a bbolt transaction, and bbolt fsyncs on commit. The file is
//     compacted when deletes leave it more free space than live data
//     (bolt_compact.go), so that its size follows the live data.
//
// A store is shared by all topics of a broker, and each topic is owned by its
// own goroutine, so both implementations are safe for concurrent use.
//
// # Durability and cost
//
// When AppendEntry returns nil the entry is durable for the implementation:
// in memory for NewMemory, on disk (fsynced) for OpenBolt. The broker
// acknowledges a message to its producer only after that, so an acknowledged
// message is never lost. OpenBolt commits appended entries in groups, as
// BookKeeper's journal does: the entries that arrive (from different topics)
// while a commit is being synced share the next commit and its one fsync,
// and a lone entry is committed at once, with no added delay. One topic still
// appends one entry per fsync, since its goroutine waits for each append;
// pipelining a topic's appends is a possible later optimisation.
//
// # Ownership of byte slices
//
// Entry metadata and payloads can be large (a chunk is up to the max message
// size, 5 MiB by default), so they are not copied on the way in:
// AppendEntry retains e.Meta and e.Payload (NewMemory) or writes them
// before returning (OpenBolt), and the caller must never modify them after
// the call. The ledger satisfies this: it hands the store the buffers
// received from the network, which are never reused. Slices passed to the
// callback of Entries belong to the store and must not be modified either.
// Cursor state is small and is copied on the way in and on the way out.
package store
