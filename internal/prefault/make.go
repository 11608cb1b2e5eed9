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
// collector freed, and the copy that fills it then writes every byte
// again: for an 8 MiB chunked message the clearing cost as much as the
// reassembly copy itself (12 % of the consumer's CPU when seeking to it
// and reading it again). Make allocates through strings.Builder.Grow,
// which the runtime serves without clearing; should a Go release clear
// it, or build strings otherwise, Make is as make again, never wrong.
func Make(n, c int) []byte {
	c = max(c, n)
	b, ok := builderBuffer(c)
	if !ok {
		b = make([]byte, c)
	}
	b = b[:n:c]
	Bytes(b)
	return b
}

// builderBuffer returns a buffer of length c from a strings.Builder's
// Grow, and false when c is below unclearedFrom or the Builder does not
// keep its strings in one buffer of that capacity.
func builderBuffer(c int) ([]byte, bool) {
	if c < unclearedFrom {
		return nil, false
	}
	var sb strings.Builder
	sb.Grow(c)
	sb.WriteByte(0)
	first := unsafe.StringData(sb.String())
	sb.WriteByte(0)
	if sb.Cap() < c || unsafe.StringData(sb.String()) != first {
		return nil, false // nothing here may reach past the strings
	}
	// The builder's buffer is a []byte of capacity c or more (Cap), and
	// its strings are views of it (the same data twice): the slice reaches
	// all of it. No string of it outlives this function, so writing to it
	// breaks no string's immutability.
	return unsafe.Slice(first, c), true
}
