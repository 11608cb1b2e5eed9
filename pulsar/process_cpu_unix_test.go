//go:build unix

package pulsar

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) this process has used so far,
// from getrusage. On a machine shared with other work, CPU per operation
// is a steadier figure than wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
