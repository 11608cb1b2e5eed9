package keyshared

import "github.com/pulsargo/sdk/internal/murmur3"

// Murmur3 returns MurmurHash3 x86 32-bit of data with the given seed: the
// value of Guava's Hashing.murmur3_32(seed).hashBytes(data).asInt(), which
// Pulsar's Murmur3_32Hash uses with seed 0 for sticky keys and hash-ring
// points.
func Murmur3(data []byte, seed uint32) uint32 { return murmur3.Sum32(data, seed) }
