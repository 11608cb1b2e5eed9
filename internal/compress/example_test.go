package compress_test

import (
	"errors"
	"fmt"

	"github.com/pulsargo/sdk/internal/compress"
)

// A producer compresses a payload and records its size in the metadata; a
// consumer decompresses it with the size from the metadata, bounded by the
// largest message it accepts.
func Example() {
	codec, err := compress.Lookup(compress.ZSTD)
	if err != nil {
		panic(err)
	}

	payload := []byte("hello, pulsar! hello, pulsar! hello, pulsar!")
	compressed := codec.Compress(nil, payload)
	uncompressedSize := len(payload) // sent as uncompressed_size

	const maxMessageSize = 5 << 20
	out, err := compress.Decompress(codec, nil, compressed, uncompressedSize, maxMessageSize)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %s\n", codec.Type(), out)

	// Metadata claiming more than the limit is rejected before allocating.
	_, err = compress.Decompress(codec, nil, compressed, 1<<40, maxMessageSize)
	fmt.Println(errors.Is(err, compress.ErrSizeLimit))

	// A payload that does not decode to the size in the metadata is corrupt.
	_, err = compress.Decompress(codec, nil, compressed, uncompressedSize+1, maxMessageSize)
	fmt.Println(errors.Is(err, compress.ErrSizeMismatch), errors.Is(err, compress.ErrCorrupt))
	// Output:
	// ZSTD: hello, pulsar! hello, pulsar! hello, pulsar!
	// true
	// true true
}

// Lookup reports types it does not know with an *UnsupportedError.
func ExampleLookup() {
	_, err := compress.Lookup(compress.Type(7))
	var unsupported *compress.UnsupportedError
	fmt.Println(errors.Is(err, compress.ErrUnsupported), errors.As(err, &unsupported), unsupported.Type)
	// Output:
	// true true Type(7)
}
