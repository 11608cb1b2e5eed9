package procmetrics

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// proc is what /proc/self says of this process.
type proc struct {
	cpuSeconds    float64
	openFDs       int
	maxFDs        uint64 // 0 when unlimited or unknown
	virtualBytes  uint64
	residentBytes uint64
	startTime     float64 // seconds since the epoch; 0 when unknown
}

// userHZ is the kernel's USER_HZ, the unit of /proc's clock-tick fields. It
// is 100 on every Linux architecture Go supports (client_golang's procfs
// assumes the same).
const userHZ = 100

// readProc reads /proc/self/stat, /proc/self/fd, /proc/self/limits and
// /proc/stat. It fails where /proc/self/stat cannot be read.
func readProc() (proc, error) {
	var p proc
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return p, err
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// the fields after it start after its last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return p, errors.New("procmetrics: /proc/self/stat: no command name")
	}
	f := strings.Fields(string(stat[i+1:]))
	// f[0] is field 3 (state): field n is f[n-3].
	field := func(n int) (uint64, error) {
		if n-3 >= len(f) {
			return 0, fmt.Errorf("procmetrics: /proc/self/stat has no field %d", n)
		}
		return strconv.ParseUint(f[n-3], 10, 64)
	}
	utime, err1 := field(14)
	stime, err2 := field(15)
	start, err3 := field(22)
	vsize, err4 := field(23)
	rss, err5 := field(24)
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return p, err
	}
	p.cpuSeconds = float64(utime+stime) / userHZ
	p.virtualBytes = vsize
	p.residentBytes = rss * uint64(os.Getpagesize())
	if bt, err := bootTime(); err == nil {
		p.startTime = float64(bt) + float64(start)/userHZ
	}
	if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
		p.openFDs = len(ents) - 1 // less the descriptor ReadDir held open
	}
	p.maxFDs = maxOpenFiles()
	return p, nil
}

// bootTime is btime of /proc/stat: the boot time in seconds since the epoch.
func bootTime() (uint64, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, errors.New("procmetrics: /proc/stat has no btime")
}

// maxOpenFiles is the soft limit of "Max open files" in /proc/self/limits;
// 0 when it is unlimited or cannot be read.
func maxOpenFiles() uint64 {
	b, err := os.ReadFile("/proc/self/limits")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Max open files"); ok {
			fs := strings.Fields(rest)
			if len(fs) > 0 {
				n, _ := strconv.ParseUint(fs[0], 10, 64) // "unlimited" parses to 0
				return n
			}
		}
	}
	return 0
}
