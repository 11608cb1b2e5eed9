// Package ledger is brokerstub's storage of topic entries: each entry is kept
// exactly as a producer sent it (raw metadata and payload) at a Position
// (ledger:entry), with ledgers rolling over after a configurable number of
// entries so that ledger boundaries are exercised as on a real broker.
//
// A [Ledger] is the entry log of one topic. It writes every entry through a
// [store.Store] before Append returns, and keeps its entries in a slice of
// ledgers each holding a slice of entries: Get, Next and Prev cost
// O(log ledgers), First and Last O(1). Each entry's metadata stays in
// memory; its payload is in a slab (arena.go) until the slab is dropped:
// when its ledger is trimmed or the topic closed, and, with a [Cache] and a
// store that reads entries back (the bbolt store), when every durable
// subscription has acknowledged it or the Cache's budget is spent. A
// dropped payload is read back from the store when it is read.
//
// Every Open starts a new ledger for its appends, with an id greater than
// any id the topic used before, as a real broker opens a fresh ledger when it
// loads a topic. Entry ids within a ledger run 0, 1, 2, ... without gaps.
// Ledgers that got no entries leave no trace in the positions: Next and Prev
// step over them.
//
// A Ledger is owned by its topic's goroutine and is not safe for concurrent
// use. Append copies the metadata and payload it is given (arena.go), so
// the caller may reuse its buffers; from then on the entry's bytes are
// shared, never copied again: the store and every reader get the same
// slices, and nobody may modify them. Entries replayed from the store by
// Open keep the store's payload slices.
package ledger
