package prefault

import (
	"syscall"
	"unsafe"
)

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14): populate the
// range's page tables writable, as writing to every page would, without
// writing.
const madvPopulateWrite = 23

// minBytes is the smallest buffer worth a system call.
const minBytes = 64 << 10

// Bytes populates the whole pages inside b, when b is at least 64 KiB.
// Errors (an older kernel, a range the kernel refuses) are ignored: the
// pages then fault in as they are written, as without Bytes.
func Bytes(b []byte) {
	if len(b) < minBytes {
		return
	}
	page := uintptr(syscall.Getpagesize())
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(b))) & (page - 1))
	n := (len(b) - off) &^ int(page-1)
	if n <= 0 {
		return
	}
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(&b[off])), uintptr(n), madvPopulateWrite)
}
