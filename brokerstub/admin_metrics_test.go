package brokerstub

import (
	"runtime"
	"strings"
	"testing"
)

// TestMetricsHaveProcessFigures: /metrics carries the Go runtime's and the
// process's figures beside the topics' series, so that an operator can tell a
// leak from a working set (issue #38).
func TestMetricsHaveProcessFigures(t *testing.T) {
	b := RunT(t)
	code, body := adminDo(t, b, "GET", "/metrics", "")
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	want := []string{"pulsar_topics_count{", "\ngo_goroutines ", "\ngo_memstats_heap_inuse_bytes ", "\ngo_gc_duration_seconds_count "}
	if runtime.GOOS == "linux" {
		want = append(want, "\nprocess_open_fds ", "\nprocess_resident_memory_bytes ", "\nprocess_cpu_seconds_total ")
	}
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("/metrics lacks %q", strings.TrimSpace(w))
		}
	}
}
