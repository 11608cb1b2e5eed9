// Package murmur3 is MurmurHash3 x86 32-bit, the hash Pulsar uses for
// Key_Shared sticky keys (brokerstub) and for Murmur3_32Hash partition
// routing (the client).
//
//	h := murmur3.Sum32([]byte("key"), 0)
package murmur3

import (
	"encoding/binary"
	"math/bits"
)

// Sum32 returns MurmurHash3 x86 32-bit of data with the given seed: the
// value of Guava's Hashing.murmur3_32(seed).hashBytes(data).asInt().
func Sum32(data []byte, seed uint32) uint32 {
	const (
		c1 = 0xcc9e2d51
		c2 = 0x1b873593
	)
	h := seed
	n := len(data)
	i := 0
	for ; i+4 <= n; i += 4 {
		k := binary.LittleEndian.Uint32(data[i:])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	var k uint32
	switch n & 3 {
	case 3:
		k ^= uint32(data[i+2]) << 16
		fallthrough
	case 2:
		k ^= uint32(data[i+1]) << 8
		fallthrough
	case 1:
		k ^= uint32(data[i])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}
