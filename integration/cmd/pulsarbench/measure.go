package main

import (
	"runtime"
	"sort"
	"time"
)

// allocated returns the bytes the process has allocated so far.
func allocated() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// measure runs f and returns how long it took and how many bytes the
// process allocated meanwhile.
func measure(f func() error) (time.Duration, uint64, error) {
	runtime.GC()
	before := allocated()
	start := time.Now()
	err := f()
	return time.Since(start), allocated() - before, err
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
