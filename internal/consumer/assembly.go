package consumer

import (
	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/prefault"
)

// prefaulted returns o with a NewBuffer, unless it has one, that maps a
// chunked message's buffer in before the chunks are copied into it (a
// 64 MiB message is one system call rather than 16,384 page faults, and
// about half the time where a page's first touch is slow, a VM's) and does
// not clear it first: the Assembler completes a message only once its
// chunks have written every byte.
func prefaulted(o chunk.Options) chunk.Options {
	if o.NewBuffer == nil {
		o.NewBuffer = func(n int) []byte { return prefault.Make(n, n) }
	}
	return o
}
