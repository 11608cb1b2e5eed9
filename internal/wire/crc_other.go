//go:build !amd64 || purego

package wire

import "hash/crc32"

// foldCRC: no folding implementation on this architecture.
const foldCRC = false

// updateCRC returns crc updated with p, as crc32.Update(crc, castagnoli, p).
func updateCRC(crc uint32, p []byte) uint32 { return crc32.Update(crc, castagnoli, p) }
