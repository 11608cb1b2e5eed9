//go:build amd64 && !purego

package wire

import (
	"hash/crc32"

	"golang.org/x/sys/cpu"
)

// foldCRC reports whether crc32cFold can run here.
var foldCRC = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VPCLMULQDQ && cpu.X86.HasPCLMULQDQ && cpu.X86.HasSSE42

// crc32cFold returns the CRC register after p (crc_amd64.s); len(p) is a
// multiple of 256, at least 512.
//
//go:noescape
func crc32cFold(crc uint32, p []byte) uint32

// updateCRC returns crc updated with p, as crc32.Update(crc, castagnoli, p).
func updateCRC(crc uint32, p []byte) uint32 {
	if foldCRC {
		for len(p) >= foldFrom {
			n := min(len(p), foldMax) &^ 255
			crc = ^crc32cFold(^crc, p[:n])
			p = p[n:]
		}
	}
	return crc32.Update(crc, castagnoli, p)
}
