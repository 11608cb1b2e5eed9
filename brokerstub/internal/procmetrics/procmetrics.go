// Package procmetrics writes the Go runtime's and the process's figures in
// the Prometheus text format, under the names of the standard Go and process
// collectors of prometheus/client_golang (go_goroutines,
// go_memstats_heap_inuse_bytes, process_open_fds,
// process_resident_memory_bytes, …), without depending on that library.
// brokerstub appends them to its /metrics so that an operator can tell a
// leak from a working set.
//
// The process figures are read from /proc/self and are left out where it
// does not exist (any OS but Linux); the Go figures are always written.
//
//	var sb strings.Builder
//	procmetrics.Write(&sb)
//	// # HELP go_goroutines Number of goroutines that currently exist.
//	// # TYPE go_goroutines gauge
//	// go_goroutines 12
//	// ...
package procmetrics

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"time"
)

// Write writes the Go runtime's series and, where /proc/self exists, the
// process's series to w. It calls runtime.ReadMemStats, which stops the
// world for a few microseconds: call it once per scrape, not per message.
func Write(w io.Writer) error {
	pw := &writer{w: w}
	writeGo(pw)
	if p, err := readProc(); err == nil {
		writeProcess(pw, p)
	}
	return pw.err
}

// writer writes series and keeps the first error.
type writer struct {
	w   io.Writer
	err error
}

func (pw *writer) printf(format string, args ...any) {
	if pw.err == nil {
		_, pw.err = fmt.Fprintf(pw.w, format, args...)
	}
}

// one writes a series of one unlabelled sample.
func (pw *writer) one(name, typ, help string, v float64) {
	pw.printf("# HELP %s %s\n# TYPE %s %s\n%s %s\n", name, help, name, typ, name, num(v))
}

// num formats v as Prometheus does: integers without an exponent.
func num(v float64) string {
	if v == float64(int64(v)) && v < 1e15 && v > -1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%g", v)
}

func writeGo(pw *writer) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gc := debug.GCStats{PauseQuantiles: make([]time.Duration, 5)}
	debug.ReadGCStats(&gc)

	pw.printf("# HELP go_gc_duration_seconds A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.\n# TYPE go_gc_duration_seconds summary\n")
	for i, q := range []string{"0", "0.25", "0.5", "0.75", "1"} {
		pw.printf("go_gc_duration_seconds{quantile=%q} %s\n", q, num(gc.PauseQuantiles[i].Seconds()))
	}
	pw.printf("go_gc_duration_seconds_sum %s\ngo_gc_duration_seconds_count %d\n", num(gc.PauseTotal.Seconds()), gc.NumGC)

	pw.one("go_goroutines", "gauge", "Number of goroutines that currently exist.", float64(runtime.NumGoroutine()))
	pw.one("go_threads", "gauge", "Number of OS threads created.", float64(pprof.Lookup("threadcreate").Count()))
	pw.printf("# HELP go_info Information about the Go environment.\n# TYPE go_info gauge\ngo_info{version=%q} 1\n", runtime.Version())

	for _, s := range []struct {
		name, typ, help string
		v               uint64
	}{
		{"go_memstats_alloc_bytes", "gauge", "Number of bytes allocated in heap and currently in use.", ms.HeapAlloc},
		{"go_memstats_alloc_bytes_total", "counter", "Total number of bytes allocated in heap until now, even if released already.", ms.TotalAlloc},
		{"go_memstats_sys_bytes", "gauge", "Number of bytes obtained from system.", ms.Sys},
		{"go_memstats_mallocs_total", "counter", "Total number of heap objects allocated, both live and gc-ed.", ms.Mallocs},
		{"go_memstats_frees_total", "counter", "Total number of heap objects frees.", ms.Frees},
		{"go_memstats_heap_alloc_bytes", "gauge", "Number of heap bytes allocated and currently in use.", ms.HeapAlloc},
		{"go_memstats_heap_sys_bytes", "gauge", "Number of heap bytes obtained from system.", ms.HeapSys},
		{"go_memstats_heap_idle_bytes", "gauge", "Number of heap bytes waiting to be used.", ms.HeapIdle},
		{"go_memstats_heap_inuse_bytes", "gauge", "Number of heap bytes that are in use.", ms.HeapInuse},
		{"go_memstats_heap_released_bytes", "gauge", "Number of heap bytes released to OS.", ms.HeapReleased},
		{"go_memstats_heap_objects", "gauge", "Number of currently allocated objects.", ms.HeapObjects},
		{"go_memstats_stack_inuse_bytes", "gauge", "Number of bytes obtained from system for stack allocator in non-CGO environments.", ms.StackInuse},
		{"go_memstats_stack_sys_bytes", "gauge", "Number of bytes obtained from system for stack allocator.", ms.StackSys},
		{"go_memstats_next_gc_bytes", "gauge", "Number of heap bytes when next garbage collection will take place.", ms.NextGC},
	} {
		pw.one(s.name, s.typ, s.help, float64(s.v))
	}
	pw.one("go_memstats_last_gc_time_seconds", "gauge", "Number of seconds since 1970 of last garbage collection.", float64(ms.LastGC)/1e9)
}

func writeProcess(pw *writer, p proc) {
	pw.one("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.", p.cpuSeconds)
	pw.one("process_open_fds", "gauge", "Number of open file descriptors.", float64(p.openFDs))
	if p.maxFDs > 0 {
		pw.one("process_max_fds", "gauge", "Maximum number of open file descriptors.", float64(p.maxFDs))
	}
	pw.one("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", float64(p.virtualBytes))
	pw.one("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", float64(p.residentBytes))
	if p.startTime > 0 {
		pw.one("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.", p.startTime)
	}
}
