package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// partitionedPair is a producer and a Shared consumer of one partitioned
// topic, through one client's API (W6).
type partitionedPair interface {
	// send sends n messages of payload asynchronously, letting the
	// client route them across partitions, and waits for every receipt.
	send(ctx context.Context, n int, payload []byte) error
	// receive receives n messages, acknowledging each.
	receive(ctx context.Context, n int) error
	close()
}

// runW6 measures W6 in this process, which must run nothing else (a -one
// child): the client is created here so that its goroutines, heap and RSS
// are all that the process adds to its baseline.
func runW6(ctx context.Context, cfg config, name, url string, small []byte, out *sample) error {
	topic := fmt.Sprintf("persistent://public/default/bench-w6-%d-%s", time.Now().UnixNano(), name)
	if err := createPartitioned(ctx, cfg.adminURL, topic, cfg.w6Partitions); err != nil {
		return err
	}
	defer func() { _ = deleteTopic(context.WithoutCancel(ctx), cfg.adminURL, topic) }()
	runtime.GC()
	base := runtime.NumGoroutine()
	// The process's RSS before the client exists (the runtime, this
	// program, the 1 KiB payload): W6's RSS is what the client adds to it.
	out.W6RSSBaseMB = rssMB()
	start := time.Now()
	s, err := newSide(name, url)
	if err != nil {
		return err
	}
	pair, err := s.openPartitioned(ctx, topic)
	if err != nil {
		s.close()
		return err
	}
	out.W6CreateMs = millis(time.Since(start))
	// What the client holds at rest, once its consumers have asked for
	// their first messages.
	time.Sleep(time.Second)
	out.W6Goroutines = float64(runtime.NumGoroutine() - base)
	out.W6HeapMB, out.W6RSSMB = heapMB(), rssMB()-out.W6RSSBaseMB
	cpu := cpuClock{}
	before := cpu.now()
	time.Sleep(cfg.w6Idle)
	out.W6IdleCPUMs = millis(cpu.now().sub(before).self)
	d, _, err := measure(func() error { return pair.send(ctx, cfg.w6Msgs, small) })
	if err != nil {
		return fmt.Errorf("w6 send: %w", err)
	}
	out.W6SendPerSec = float64(cfg.w6Msgs) / d.Seconds()
	before = cpu.now()
	d, _, err = measure(func() error { return pair.receive(ctx, cfg.w6Msgs) })
	if err != nil {
		return fmt.Errorf("w6 receive: %w", err)
	}
	out.W6RecvPerSec = float64(cfg.w6Msgs) / d.Seconds()
	// The client's CPU per message received: on a shared machine, less
	// noisy than the elapsed time.
	out.W6RecvCPUUs = float64(cpu.now().sub(before).self.Nanoseconds()) / 1000 / float64(cfg.w6Msgs)
	out.W6RSSMB = max(out.W6RSSMB, rssMB()-out.W6RSSBaseMB)
	start = time.Now()
	pair.close()
	s.close()
	out.W6CloseMs = millis(time.Since(start))
	// Goroutines that end on their own after Close get a moment to.
	time.Sleep(time.Second)
	out.W6GoroutinesLeft = float64(runtime.NumGoroutine() - base)
	return nil
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// heapMB is the live heap after a collection, in MiB.
func heapMB() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20)
}

// rssMB is this process's resident set (VmRSS), in MiB; 0 where /proc is
// not there.
func rssMB() float64 { return procStatusMB("VmRSS:") }

// procStatusMB reads a kB field of /proc/self/status, in MiB.
func procStatusMB(field string) float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// createPartitioned creates a partitioned topic of n partitions through the
// admin REST API at adminURL.
func createPartitioned(ctx context.Context, adminURL, topic string, n int) error {
	if adminURL == "" {
		return fmt.Errorf("w6 needs the admin URL (-admin-url) to create its %d-partition topic", n)
	}
	path, _ := strings.CutPrefix(topic, "persistent://")
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	rq, err := http.NewRequestWithContext(ctx, http.MethodPut,
		strings.TrimSuffix(adminURL, "/")+"/admin/v2/persistent/"+path+"/partitions", strings.NewReader(strconv.Itoa(n)))
	if err != nil {
		return err
	}
	rq.Header.Set("Content-Type", "application/json")
	rsp, err := http.DefaultClient.Do(rq)
	if err != nil {
		return fmt.Errorf("create %s: %w", topic, err)
	}
	defer rsp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(rsp.Body, 4<<10))
	if rsp.StatusCode/100 != 2 {
		return fmt.Errorf("create %s with %d partitions: %s: %s", topic, n, rsp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}
