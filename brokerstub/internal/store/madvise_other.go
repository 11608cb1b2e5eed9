//go:build !linux

package store

// dontNeed does nothing where the stub does not measure its mapped pages.
func dontNeed(addr, n uintptr) {}
