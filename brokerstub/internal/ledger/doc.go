// Package ledger is brokerstub's storage of topic entries: each entry is kept
// exactly as a producer sent it (raw metadata and payload) at a Position
// (ledger:entry), with ledgers rolling over after a configurable number of
// entries so that ledger boundaries are exercised as on a real broker.
package ledger
