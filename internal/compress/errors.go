package compress

import (
	"errors"
	"fmt"
)

// Errors reported by this package. They are wrapped with context; test for
// them with errors.Is.
var (
	// ErrUnsupported reports a compression type this package does not know.
	ErrUnsupported = errors.New("compress: unsupported compression type")

	// ErrInvalidSize reports an uncompressed size that cannot be valid, such
	// as a negative one.
	ErrInvalidSize = errors.New("compress: invalid uncompressed size")

	// ErrSizeLimit reports an uncompressed size above the caller's limit.
	ErrSizeLimit = errors.New("compress: uncompressed size exceeds limit")

	// ErrCorrupt reports compressed data that cannot be decoded.
	ErrCorrupt = errors.New("compress: corrupt input")

	// ErrSizeMismatch reports compressed data that does not decode to the
	// uncompressed size given in the metadata. It wraps ErrCorrupt, so
	// errors.Is(err, ErrCorrupt) also holds for such errors.
	ErrSizeMismatch = fmt.Errorf("%w: size mismatch", ErrCorrupt)
)

// UnsupportedError is returned by Lookup for an unknown compression type.
// It wraps ErrUnsupported.
type UnsupportedError struct {
	// Type is the type that was looked up.
	Type Type
}

// Error implements the error interface.
func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%v %d", ErrUnsupported, int32(e.Type))
}

// Unwrap returns ErrUnsupported.
func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }
