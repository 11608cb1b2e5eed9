package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuClock reads the CPU time (user + system) a process has used so far:
// this process from getrusage, a child (the stub, the relay) from
// /proc/<pid>/stat. CPU seconds per GB moved is a steadier figure than wall
// time on a shared machine.
type cpuClock struct {
	child int // pid of the broker or relay child; 0: none (a -url broker)
}

// cpuSample is the CPU time used so far by this process and the child.
type cpuSample struct{ self, child time.Duration }

func (c cpuClock) now() cpuSample {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	s := cpuSample{self: time.Duration(ru.Utime.Nano() + ru.Stime.Nano())}
	if c.child > 0 {
		s.child, _ = procCPU(c.child)
	}
	return s
}

func (s cpuSample) sub(t cpuSample) cpuSample { return cpuSample{s.self - t.self, s.child - t.child} }
func (s cpuSample) add(t cpuSample) cpuSample { return cpuSample{s.self + t.self, s.child + t.child} }

// procCPU reads utime + stime of pid from /proc/<pid>/stat (Linux; elsewhere
// it reports an error and the child's figure stays 0).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, utime 14 and stime 15.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("bad /proc stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("bad /proc stat")
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("bad /proc stat")
	}
	const ticksPerSecond = 100 // USER_HZ, 100 on every Linux architecture Go supports
	return time.Duration(ut+st) * time.Second / ticksPerSecond, nil
}

// perGB is seconds of CPU per GB (1e9 bytes) moved.
func perGB(d time.Duration, bytes float64) float64 {
	if bytes <= 0 {
		return 0
	}
	return d.Seconds() / (bytes / 1e9)
}
