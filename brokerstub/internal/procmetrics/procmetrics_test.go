package procmetrics

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// scrape writes the metrics and parses them: every sample line is
// "name[{labels}] value", and every name has one HELP and one TYPE line
// before its samples.
func scrape(t *testing.T) map[string]float64 {
	t.Helper()
	var sb strings.Builder
	if err := Write(&sb); err != nil {
		t.Fatal(err)
	}
	vals := map[string]float64{}
	typed := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(sb.String()))
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			typed[strings.Fields(rest)[0]]++
			continue
		}
		if strings.HasPrefix(line, "# HELP ") {
			continue
		}
		name, v, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("not a sample: %q", line)
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		base, _, _ := strings.Cut(name, "{")
		family := strings.TrimSuffix(strings.TrimSuffix(base, "_sum"), "_count")
		if typed[base] != 1 && typed[family] != 1 {
			t.Fatalf("%s: sample without one TYPE line", base)
		}
		vals[name] = f
	}
	return vals
}

func TestGoroutinesAndHeapFollowTheProcess(t *testing.T) {
	before := scrape(t)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 50 {
		wg.Go(func() { <-stop })
	}
	keep := make([][]byte, 64)
	for i := range keep {
		keep[i] = make([]byte, 1<<20)
	}
	during := scrape(t)
	close(stop)
	wg.Wait()
	runtime.KeepAlive(keep)

	if d := during["go_goroutines"] - before["go_goroutines"]; d < 50 {
		t.Errorf("go_goroutines rose by %v with 50 more goroutines", d)
	}
	if d := during["go_memstats_heap_alloc_bytes"] - before["go_memstats_heap_alloc_bytes"]; d < 60<<20 {
		t.Errorf("go_memstats_heap_alloc_bytes rose by %v with 64 MiB more held", d)
	}
	for _, name := range []string{"go_threads", "go_memstats_sys_bytes", "go_memstats_next_gc_bytes", `go_info{version="` + runtime.Version() + `"}`} {
		if during[name] <= 0 {
			t.Errorf("%s = %v", name, during[name])
		}
	}
}

func TestProcessFiguresOnLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process figures come from /proc")
	}
	before := scrape(t)
	dir := t.TempDir()
	for i := range 20 {
		f, err := os.Create(filepath.Join(dir, strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
	}
	during := scrape(t)
	if d := during["process_open_fds"] - before["process_open_fds"]; d != 20 {
		t.Errorf("process_open_fds rose by %v with 20 files open", d)
	}
	if rss := during["process_resident_memory_bytes"]; rss < 1<<20 || rss > during["process_virtual_memory_bytes"] {
		t.Errorf("process_resident_memory_bytes = %v (virtual %v)", rss, during["process_virtual_memory_bytes"])
	}
	if during["process_cpu_seconds_total"] < 0 || during["process_start_time_seconds"] < 1e9 {
		t.Errorf("cpu %v start %v", during["process_cpu_seconds_total"], during["process_start_time_seconds"])
	}
	if m := during["process_max_fds"]; m != 0 && m < during["process_open_fds"] {
		t.Errorf("process_max_fds %v < open %v", m, during["process_open_fds"])
	}
}
