package wire

// foldFrom is the length from which folding pays: below it hash/crc32's
// three-way CRC32 instruction loop is as fast, without the AVX-512 setup.
const foldFrom = 1 << 10

// foldMax bounds one call of crc32cFold (some 10 µs), so that a goroutine
// computing a large frame's checksum can be preempted in between.
const foldMax = 256 << 10
