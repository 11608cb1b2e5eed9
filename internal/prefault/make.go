package prefault

import (
	"strings"
	"unsafe"
)

// unclearedFrom is the capacity from which Make skips clearing: below it a
// buffer costs little to clear and comes from the allocator's small size
// classes.
const unclearedFrom = 64 << 10

// Make returns a new buffer of length n and capacity c (n when c < n), as
// make([]byte, n, c) does, except that its bytes are not cleared first and
// its first n bytes are mapped in ahead (Bytes). It is for a buffer that
// its caller writes whole before reading any of it: a chunked message's
// reassembly buffer, a ledger slab, a frame read from a socket. Reading a
// byte of it before writing it yields whatever that memory held before in
// this process.
//
// make clears every byte of a large buffer that reuses memory the garbage
// collector freed, and the copy that fills the buffer then writes every
// byte again: for an 8 MiB chunked message the clearing cost as much as the
// reassembly copy itself (12 % of the consumer's CPU when seeking to it
// and reading it again). Make allocates through strings.Builder.Grow,
// which the runtime serves without clearing; should a Go release clear it,
// Make is as make again, never wrong.
func Make(n, c int) []byte {
	c = max(c, n)
	if c < unclearedFrom {
		return make([]byte, n, c)
	}
	var sb strings.Builder
	sb.Grow(c)
	sb.WriteByte(0)
	// The builder's buffer is a []byte of capacity c or more, now reached
	// only through b: no string of it outlives this function, so writing
	// to it breaks no string's immutability.
	b := unsafe.Slice(unsafe.StringData(sb.String()), c)[:n:c]
	Bytes(b)
	return b
}
