package store

import "syscall"

// dontNeed advises the kernel that the n mapped bytes at addr are not
// needed (MADV_DONTNEED). A failure only leaves the pages resident.
func dontNeed(addr, n uintptr) {
	if addr == 0 || n == 0 {
		return
	}
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, addr, n, syscall.MADV_DONTNEED)
}
