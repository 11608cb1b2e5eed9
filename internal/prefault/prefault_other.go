//go:build !linux

package prefault

// Bytes does nothing on this system (see the package documentation).
func Bytes(b []byte) {}
