package prefault

import (
	"syscall"
	"unsafe"
)

const (
	// madvHugepage is MADV_HUGEPAGE: back the range with transparent huge
	// pages where the kernel can.
	madvHugepage = 14
	// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14): populate the
	// range's page tables writable, as writing to every page would,
	// without writing.
	madvPopulateWrite = 23
	// hugePage is the size of a transparent huge page on amd64 and on
	// arm64 with 4 KiB pages; where it is larger, the marked blocks get no
	// huge page and the advice is harmless.
	hugePage = 2 << 20
)

// minBytes is the smallest buffer worth a system call.
const minBytes = 64 << 10

// Bytes populates the whole pages inside b, when b is at least 64 KiB, as
// huge pages for the 2 MiB blocks wholly inside it. Errors (an older
// kernel, THP disabled, a range the kernel refuses) are ignored: the pages
// then fault in as they are written, as without Bytes.
func Bytes(b []byte) {
	if len(b) < minBytes {
		return
	}
	madviseInside(b, hugePage, madvHugepage)
	madviseInside(b, uintptr(syscall.Getpagesize()), madvPopulateWrite)
}

// madviseInside gives advice for the largest range inside b whose start
// and length are multiples of align (a power of two), if there is one.
func madviseInside(b []byte, align uintptr, advice uintptr) {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	off := -start & (align - 1)
	if off >= uintptr(len(b)) {
		return
	}
	n := (uintptr(len(b)) - off) &^ (align - 1)
	if n == 0 {
		return
	}
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(&b[off])), n, advice)
}
