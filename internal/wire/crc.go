package wire

// foldFrom is the length from which folding pays: below it hash/crc32's
// three-way CRC32 instruction loop is as fast (at 1-2 KiB, on the EPYC VM
// of docs/benchmarks.md), without the AVX-512 setup.
const foldFrom = 4 << 10

// crc32cFold needs at least 512 bytes: foldFrom may not go below (this
// constant would overflow).
const _ = uint(foldFrom - 512)

// foldMax bounds one call of crc32cFold (some 10 µs), so that a goroutine
// computing a large frame's checksum can be preempted in between.
const foldMax = 256 << 10
