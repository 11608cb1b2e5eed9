// Package cursor is brokerstub's model of one subscription's acknowledgment
// state: a faithful model of Apache Pulsar's ManagedCursor, minus its
// batch-index persistence bug (apache/pulsar#26498, where acknowledging part
// of a batch changes the bitmap but does not mark the cursor dirty, so the
// next flush skips it and a crash redelivers the acknowledged message).
//
// A Cursor holds
//   - the mark-delete position: every entry at or before it is acknowledged;
//   - the individually deleted ranges: a range set of fully acknowledged
//     entries after the mark-delete position, stored as closed intervals of
//     existing positions (see rangeSet), merged across ledger boundaries with
//     the help of the topic's Layout;
//   - batch-index bitmaps: for entries of which only some messages of a batch
//     are acknowledged, Pulsar's ack_set words (a SET bit = that batch index
//     is NOT yet acknowledged).
//
// Every change to any part of that state marks the cursor dirty, and a no-op
// does not. The owner persists the cursor with Flush (on close) and MaybeFlush
// (from its ticker and after acks); a "crash" is modelled by Restore from the
// last bytes that Flush or MaybeFlush returned (PersistedBytes).
//
// A Cursor is owned by one goroutine (the topic's) and is NOT safe for
// concurrent use.
package cursor
