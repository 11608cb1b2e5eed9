package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// side is one client under test; ours and theirs implement it.
type side interface {
	// name is "ours" or "theirs".
	name() string
	// produce sends n batched messages of payload and waits for every
	// acknowledgment (W1).
	produce(ctx context.Context, topic string, n int, payload []byte) error
	// send sends one chunked message (W2, W4).
	send(ctx context.Context, topic string, payload []byte) error
	// receive subscribes from the earliest message and receives one message,
	// checking its length (W2, W3).
	receive(ctx context.Context, topic string, size int) error
	// seekRead prepares a backlog of small messages followed by one chunked
	// message, reads through them, then measures Seek to the chunked
	// message's id and reading it again (W5): the first time, and the
	// median of seeksPerRun times.
	seekRead(ctx context.Context, topic string, backlog int, payload []byte) (first, med time.Duration, err error)
	// openPartitioned opens a producer and a Shared consumer (from the
	// earliest message) on a partitioned topic (W6).
	openPartitioned(ctx context.Context, topic string) (partitionedPair, error)
	// seekSecond sends three chunked messages of payload, receives them,
	// and measures Seek to the second one's id (as Send returned it) and
	// receiving it again (W7).
	seekSecond(ctx context.Context, topic string, payload []byte) (time.Duration, error)
	close()
}

// sample is one run's figures.
type sample struct {
	W1MsgsPerSec float64
	W2MBPerSec   float64
	// W2SendMs and W2RecvMs split W2's time per message between sending
	// (until the last chunk's receipt) and receiving.
	W2SendMs, W2RecvMs float64
	W3AllocX           float64
	W4AllocX           float64
	W5Millis           float64 // median of seeksPerRun seeks
	W5FirstMs          float64 // the first seek, right after reading the backlog
	// CPU seconds per GB moved in W2, this process and the broker process.
	W2ClientCPU, W2BrokerCPU float64
	// W6: creating a producer and consumer of the partitioned topic, what
	// the client holds then (goroutines, heap, RSS; RSS the larger of then
	// and after receiving, over W6RSSBaseMB, the child's RSS before the
	// client was created), its CPU while idle, send and receive rates,
	// closing, and the goroutines left after Close.
	W6CreateMs, W6Goroutines, W6HeapMB, W6RSSMB, W6IdleCPUMs float64
	W6RSSBaseMB                                              float64
	W6RecvCPUUs                                              float64 // client CPU per message received, µs
	W6SendPerSec, W6RecvPerSec, W6CloseMs, W6GoroutinesLeft  float64
	// W7: seek-then-receive of a 64 MiB message, and 1 KiB sends, in a new
	// process.
	W7SeekMs, W7SendPerSec float64
	// Failed holds, by workload, the error of a run that failed; its
	// figures count in no median.
	Failed map[string]string `json:",omitempty"`
}

// fail records that workload w's run failed with err.
func (s *sample) fail(w string, err error) {
	if s.Failed == nil {
		s.Failed = map[string]string{}
	}
	s.Failed[w] = err.Error()
}

// Results are the medians per client and the ratios.
type Results struct {
	Runs int
	// Raw is the raw baseline of W2 (MB/s, and CPU s/GB of this process
	// and the relay), measured in the same runs.
	Raw    map[string]float64
	Ours   map[string]float64
	Theirs map[string]float64
	Ratios map[string]float64
	// Failures are the runs that failed (a child's panic, an error), in
	// run order; they count in no median.
	Failures []Failure `json:",omitempty"`
	Elapsed  string
}

func (r Results) summary() string {
	ratio := func(key string) string { return r.ratio(key, "%.2f", 1) }
	line := fmt.Sprintf("pulsarbench: w1 %s w2 %s (%s/%s of raw) w3 %.2fx/%.2fx w4 %.2fx/%.2fx w5 %s",
		ratio("w1"), ratio("w2"), r.ratio("w2raw", "%.0f%%", 100), r.ratio("w2rawTheirs", "%.0f%%", 100),
		r.Ours["w3"], r.Theirs["w3"], r.Ours["w4"], r.Theirs["w4"], ratio("w5"))
	if _, ok := r.Ratios["w6recv"]; ok {
		line += fmt.Sprintf(" w6 recv %s send %s goroutines %s rss %s idle-cpu %s", ratio("w6recv"), ratio("w6send"),
			ratio("w6gor"), ratio("w6rss"), r.ratio("w6idle", "%.3f", 1))
	}
	if _, ok := r.Ratios["w7seek"]; ok {
		line += fmt.Sprintf(" w7 seek %s send %s", ratio("w7seek"), ratio("w7send"))
	}
	return line
}

// ratio formats Ratios[key] times scale, or "-" when it was not computed
// (a workload or a client not run).
func (r Results) ratio(key, format string, scale float64) string {
	v, ok := r.Ratios[key]
	if !ok {
		return "-"
	}
	return fmt.Sprintf(format, scale*v)
}

func printTable(w io.Writer, r Results) {
	fmt.Fprintf(w, "\n%-46s %14s    %14s    %8s\n", "workload (median of runs)", "ours", "official", "ratio")
	rows := []struct{ key, label, unit string }{
		{"w1", "W1 produce 1 KiB batched", "msgs/s"},
		{"w2", "W2 64 MiB chunked end to end", "MB/s"},
		{"w3", "W3 receive: bytes allocated per payload byte", "x"},
		{"w4", "W4 send: bytes allocated per payload byte", "x"},
		{"w5", "W5 seek to chunk id and read, 10k backlog", "ms"},
		{"w5first", "W5 the first seek after reading the backlog", "ms"},
		{"w2cpu", "W2 client CPU per GB moved", "s"},
		{"w2bcpu", "W2 broker CPU per GB moved", "s"},
		{"w6create", "W6 create producer+consumer (partitioned)", "ms"},
		{"w6gor", "W6 goroutines held (ratio ours/theirs)", ""},
		{"w6heap", "W6 heap held", "MB"},
		{"w6rss", "W6 RSS over the child's baseline (ours/theirs)", "MB"},
		{"w6idle", "W6 idle CPU (ratio ours/theirs)", "ms"},
		{"w6send", "W6 send 1 KiB across partitions", "msgs/s"},
		{"w6recv", "W6 receive 1 KiB across partitions", "msgs/s"},
		{"w6recvcpu", "W6 receive: client CPU per message", "us"},
		{"w6close", "W6 close", "ms"},
		{"w6left", "W6 goroutines left after Close", ""},
		{"w7seek", "W7 new process: seek to 2nd of 3 64 MiB, receive", "ms"},
		{"w7send", "W7 new process: 20,000 1 KiB SendAsync", "msgs/s"},
	}
	// Measured runs that failed, by client and workload.
	failed := map[string]int{}
	for _, f := range r.Failures {
		if f.Run >= 0 {
			failed[f.Client+":"+f.Workload]++
		}
	}
	cell := func(m map[string]float64, client, key, unit string) string {
		if _, ok := m[key]; !ok && failed[client+":"+workloadOf(key)] > 0 {
			return fmt.Sprintf("%14s %-2s", "failed", "")
		}
		return fmt.Sprintf("%14.2f %-2s", m[key], unit)
	}
	// note says how many of a row's runs failed, after the ratio.
	note := func(key string) string {
		var parts []string
		for _, client := range []string{"ours", "theirs"} {
			if n := failed[client+":"+workloadOf(key)]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s: %d of %d runs failed", client, n, r.Runs))
			}
		}
		if len(parts) == 0 {
			return ""
		}
		return "  (" + strings.Join(parts, ", ") + ")"
	}
	for _, row := range rows {
		wl := workloadOf(row.key)
		if r.Ours[row.key] == 0 && r.Theirs[row.key] == 0 && failed["ours:"+wl] == 0 && failed["theirs:"+wl] == 0 {
			continue // not run (-w)
		}
		ratio := "-"
		if v, ok := r.Ratios[row.key]; ok {
			ratio = fmt.Sprintf("%.2f", v)
		}
		fmt.Fprintf(w, "%-46s %s %s %8s%s\n", row.label, cell(r.Ours, "ours", row.key, row.unit), cell(r.Theirs, "theirs", row.key, row.unit), ratio, note(row.key))
	}
	if r.Raw["w2"] > 0 {
		fmt.Fprintf(w, "%-46s %11.2f MB/s (CPU per GB: %.2f s sender+receiver, %.2f s relay)\n", "W2 raw baseline (no protocol, same topology)",
			r.Raw["w2"], r.Raw["w2cpu"], r.Raw["w2bcpu"])
		fmt.Fprintf(w, "%-46s %13s  %13s\n", "W2 as a fraction of the raw baseline", r.ratio("w2raw", "%.0f %%", 100), r.ratio("w2rawTheirs", "%.0f %%", 100))
	}
	fmt.Fprintf(w, "(%d runs per client, elapsed %s)\n\n", r.Runs, r.Elapsed)
	printFailures(w, r.Failures)
}

// benchmark measures the workloads one after the other, each one's runs
// back to back (the warm-up runs first) with the two clients alternating
// run by run, and reduces to medians. Both clients thus run a workload
// after the same one: measured in one pass (W1, W2, W5 of one client,
// then of the other), each client's W1 followed the other's W5 and the
// heap that left, which moved W1's ratio between 1.3 and 1.65 in runs of
// the same code.
func benchmark(ctx context.Context, cfg config, url string, cpu cpuClock, relay *childProcess, log io.Writer) (Results, error) {
	small, big, err := payloads(cfg)
	if err != nil {
		return Results{}, err
	}
	r := runner{cfg: cfg, url: url, cpu: cpu, relay: relay, small: small, big: big, inChild: cfg.fresh}
	samples := map[string][]sample{"raw": make([]sample, cfg.reps), "ours": make([]sample, cfg.reps), "theirs": make([]sample, cfg.reps)}
	var failures []Failure
	for _, w := range []string{"w1", "w2", "w5", "w6", "w7"} {
		if !cfg.runs(w) {
			continue
		}
		first := -cfg.warmup
		if ownProcess(w) {
			first = 0 // every run is a new process: nothing to warm up
		}
		for rep := first; rep < cfg.reps; rep++ {
			var scratch sample
			into := func(name string) *sample {
				if rep < 0 {
					scratch = sample{}
					return &scratch
				}
				return &samples[name][rep]
			}
			// A failed run is recorded and the others go on (failures.go).
			failed := func(name string, got *sample, err error) bool {
				if err == nil {
					return false
				}
				if ctx.Err() != nil {
					return false // interrupted: not the client's failure
				}
				got.fail(w, err)
				failures = append(failures, Failure{Client: name, Workload: w, Run: max(rep, -1), Error: err.Error()})
				fmt.Fprintf(log, "  %-7s %s %-6s FAILED: %s\n", runLabel(rep), w, name, strings.SplitN(err.Error(), "\n", 2)[0])
				return true
			}
			if w == "w2" && relay != nil {
				got := into("raw")
				if err := r.raw(ctx, rep, got); err != nil {
					if !failed("raw", got, err) {
						return Results{}, fmt.Errorf("raw run %d: %w", rep, err)
					}
				} else {
					fmt.Fprintf(log, "  %-7s %s raw    %.1f MB/s  cpu %.2f s/GB + relay %.2f s/GB\n", runLabel(rep), w, got.W2MBPerSec, got.W2ClientCPU, got.W2BrokerCPU)
				}
			}
			for _, name := range cfg.clients {
				got := into(name)
				if err := r.client(ctx, name, w, rep, got); err != nil {
					if !failed(name, got, err) {
						return Results{}, fmt.Errorf("%s run %d: %s: %w", name, rep, w, err)
					}
					continue
				}
				fmt.Fprintf(log, "  %-7s %s %-6s %s\n", runLabel(rep), w, name, got.describe(w))
			}
		}
	}
	if !cfg.runs("w2") || relay == nil {
		delete(samples, "raw")
	}
	res := Results{Runs: cfg.reps, Ours: reduce(samples["ours"]), Theirs: reduce(samples["theirs"]), Ratios: map[string]float64{}, Failures: failures}
	// A ratio is bigger-is-better for pulsargo: ours/theirs for
	// throughput, theirs/ours for latency; only where both were measured.
	div := func(key string, num, den float64) {
		if num > 0 && den > 0 {
			res.Ratios[key] = num / den
		}
	}
	div("w1", res.Ours["w1"], res.Theirs["w1"])
	div("w2", res.Ours["w2"], res.Theirs["w2"])
	div("w5", res.Theirs["w5"], res.Ours["w5"])
	div("w5first", res.Theirs["w5first"], res.Ours["w5first"])
	div("w6recv", res.Ours["w6recv"], res.Theirs["w6recv"])
	div("w6send", res.Ours["w6send"], res.Theirs["w6send"])
	div("w6recvcpu", res.Theirs["w6recvcpu"], res.Ours["w6recvcpu"])
	div("w6create", res.Theirs["w6create"], res.Ours["w6create"])
	div("w6close", res.Theirs["w6close"], res.Ours["w6close"])
	// Smaller is better, and the goals are fractions (goroutines at most
	// 0.1x, RSS 0.6x, idle CPU 0.01x the official's): these are ours/theirs.
	div("w6gor", res.Ours["w6gor"], res.Theirs["w6gor"])
	div("w6rss", res.Ours["w6rss"], res.Theirs["w6rss"])
	div("w6idle", max(res.Ours["w6idle"], 0.001), res.Theirs["w6idle"])
	div("w7seek", res.Theirs["w7seek"], res.Ours["w7seek"])
	div("w7send", res.Ours["w7send"], res.Theirs["w7send"])
	if raw := samples["raw"]; len(raw) > 0 {
		res.Raw = reduce(raw)
		div("w2raw", res.Ours["w2"], res.Raw["w2"])
		div("w2rawTheirs", res.Theirs["w2"], res.Raw["w2"])
	}
	return res, nil
}

// describe is the log line's figures of workload w.
func (s sample) describe(w string) string {
	switch w {
	case "w1":
		return fmt.Sprintf("%.0f msgs/s", s.W1MsgsPerSec)
	case "w2":
		return fmt.Sprintf("%.1f MB/s (send %.0f + receive %.0f ms)  w3 %.2fx  w4 %.2fx  cpu %.2f s/GB + broker %.2f s/GB",
			s.W2MBPerSec, s.W2SendMs, s.W2RecvMs, s.W3AllocX, s.W4AllocX, s.W2ClientCPU, s.W2BrokerCPU)
	case "w6":
		return fmt.Sprintf("create %.0f ms, %.0f goroutines, heap %.1f MB, RSS +%.1f MB (over %.1f), idle CPU %.1f ms, send %.0f msgs/s, receive %.0f msgs/s (CPU %.2f µs/msg), close %.0f ms, %.0f goroutines left",
			s.W6CreateMs, s.W6Goroutines, s.W6HeapMB, s.W6RSSMB, s.W6RSSBaseMB, s.W6IdleCPUMs, s.W6SendPerSec, s.W6RecvPerSec, s.W6RecvCPUUs, s.W6CloseMs, s.W6GoroutinesLeft)
	case "w7":
		return fmt.Sprintf("seek-then-receive %.1f ms, send %.0f msgs/s", s.W7SeekMs, s.W7SendPerSec)
	default:
		return fmt.Sprintf("%.1f ms (first %.1f)", s.W5Millis, s.W5FirstMs)
	}
}

// runRaw moves W2's messages through the relay at addr, whose pid is
// relayPID (the raw baseline), and fills in out's W2 figures.
func runRaw(cfg config, addr string, relayPID int, big []byte, out *sample) error {
	cpu := cpuClock{child: relayPID}
	before := cpu.now()
	var total time.Duration
	for i := 0; i < cfg.w2Msgs; i++ {
		d, err := rawMove(addr, big, 1<<20)
		if err != nil {
			return err
		}
		total += d
	}
	used := cpu.now().sub(before)
	bytesMoved := float64(cfg.w2Msgs) * float64(len(big))
	out.W2MBPerSec = bytesMoved / (1 << 20) / total.Seconds()
	out.W2ClientCPU, out.W2BrokerCPU = perGB(used.self, bytesMoved), perGB(used.child, bytesMoved)
	return nil
}

// runWorkload runs workload w ("w1", "w2" or "w5") once with s and fills in
// its figures in out; its topics are deleted once measured.
func runWorkload(ctx context.Context, cfg config, w string, s side, cpu cpuClock, rep int, small, big []byte, out *sample) error {
	prefix := fmt.Sprintf("persistent://public/default/bench-%d-%d-%s", time.Now().UnixNano(), rep, s.name())
	switch w {
	case "w1":
		d, _, err := measure(func() error { return s.produce(ctx, prefix+"-w1", cfg.w1Msgs, small) })
		if err != nil {
			return err
		}
		out.W1MsgsPerSec = float64(cfg.w1Msgs) / d.Seconds()
		return deleteTopic(ctx, cfg.adminURL, prefix+"-w1")
	case "w2":
		return runW2(ctx, cfg, s, cpu, prefix, big, out)
	case "w7":
		return runW7(ctx, cfg, s, small, big, out)
	default:
		first, lat, err := s.seekRead(ctx, prefix+"-w5", cfg.backlog, big[:w5Size])
		if err != nil {
			return err
		}
		out.W5Millis = float64(lat.Microseconds()) / 1000
		out.W5FirstMs = float64(first.Microseconds()) / 1000
		return deleteTopic(ctx, cfg.adminURL, prefix+"-w5")
	}
}

// runW2 sends and receives W2's chunked messages, one topic each, and
// fills in W2, W3 and W4.
func runW2(ctx context.Context, cfg config, s side, cpu cpuClock, prefix string, big []byte, out *sample) error {

	var total, sending time.Duration
	var sendAlloc, recvAlloc uint64
	var used cpuSample
	for i := 0; i < cfg.w2Msgs; i++ {
		topic := fmt.Sprintf("%s-w2-%d", prefix, i)
		before := cpu.now()
		ds, as, err := measure(func() error { return s.send(ctx, topic, big) })
		if err != nil {
			return fmt.Errorf("w2 send: %w", err)
		}
		dr, ar, err := measure(func() error { return s.receive(ctx, topic, len(big)) })
		if err != nil {
			return fmt.Errorf("w2 receive: %w", err)
		}
		used = used.add(cpu.now().sub(before))
		total += ds + dr
		sending += ds
		sendAlloc += as
		recvAlloc += ar
		if err := deleteTopic(ctx, cfg.adminURL, topic); err != nil {
			return err
		}
	}
	bytesMoved := float64(cfg.w2Msgs) * float64(len(big))
	out.W2MBPerSec = bytesMoved / (1 << 20) / total.Seconds()
	out.W2SendMs = float64(sending.Microseconds()) / 1000 / float64(cfg.w2Msgs)
	out.W2RecvMs = float64((total - sending).Microseconds()) / 1000 / float64(cfg.w2Msgs)
	out.W3AllocX = float64(recvAlloc) / bytesMoved
	out.W4AllocX = float64(sendAlloc) / bytesMoved
	out.W2ClientCPU, out.W2BrokerCPU = perGB(used.self, bytesMoved), perGB(used.child, bytesMoved)
	return nil
}

// runLabel names run rep in the log: "run N", or "warm-up" for the
// uncounted runs (rep < 0).
func runLabel(rep int) string {
	if rep < 0 {
		return "warm-up"
	}
	return fmt.Sprintf("run %d", rep)
}

// reduce returns the medians of the samples' figures, by Results key; a
// run that failed counts in no median of its workload's figures, and a
// figure whose every run failed is absent.
func reduce(ss []sample) map[string]float64 {
	cols := map[string]func(sample) float64{
		"w1":        func(s sample) float64 { return s.W1MsgsPerSec },
		"w2":        func(s sample) float64 { return s.W2MBPerSec },
		"w3":        func(s sample) float64 { return s.W3AllocX },
		"w4":        func(s sample) float64 { return s.W4AllocX },
		"w5":        func(s sample) float64 { return s.W5Millis },
		"w5first":   func(s sample) float64 { return s.W5FirstMs },
		"w2cpu":     func(s sample) float64 { return s.W2ClientCPU },
		"w2bcpu":    func(s sample) float64 { return s.W2BrokerCPU },
		"w6create":  func(s sample) float64 { return s.W6CreateMs },
		"w6gor":     func(s sample) float64 { return s.W6Goroutines },
		"w6heap":    func(s sample) float64 { return s.W6HeapMB },
		"w6rss":     func(s sample) float64 { return s.W6RSSMB },
		"w6idle":    func(s sample) float64 { return s.W6IdleCPUMs },
		"w6send":    func(s sample) float64 { return s.W6SendPerSec },
		"w6recv":    func(s sample) float64 { return s.W6RecvPerSec },
		"w6recvcpu": func(s sample) float64 { return s.W6RecvCPUUs },
		"w6close":   func(s sample) float64 { return s.W6CloseMs },
		"w6left":    func(s sample) float64 { return s.W6GoroutinesLeft },
		"w7seek":    func(s sample) float64 { return s.W7SeekMs },
		"w7send":    func(s sample) float64 { return s.W7SendPerSec },
	}
	out := make(map[string]float64, len(cols))
	for key, f := range cols {
		w := workloadOf(key)
		xs := make([]float64, 0, len(ss))
		for _, s := range ss {
			if s.Failed[w] == "" {
				xs = append(xs, f(s))
			}
		}
		if len(xs) > 0 {
			out[key] = median(xs)
		}
	}
	return out
}

// checkPayload compares a received payload's length with what was sent.
func checkPayload(got []byte, size int) error {
	if len(got) != size {
		return fmt.Errorf("received %d bytes, want %d", len(got), size)
	}
	return nil
}
