// Command pulsarbench measures this SDK against the official Go client
// (github.com/apache/pulsar-client-go) on the same broker, alternating the
// two clients run by run (A B A B ...), and prints medians and ratios. It
// lives in the integration module (the root module does not require the
// official client), so run it from there:
//
//	cd integration && go run ./cmd/pulsarbench         # full run against a brokerstub
//	cd integration && go run ./cmd/pulsarbench -quick  # a smaller run, under a minute
//	cd integration && go run ./cmd/pulsarbench -url pulsar://broker:6650 -json out.json
//	cd integration && go run ./cmd/pulsarbench -w w5 -reps 9  # only W5
//	cd integration && go run ./cmd/pulsarbench -fresh         # a new process per run
//	cd integration && go run ./cmd/pulsarbench -w stream      # 1 GiB streamed, per-process peak RSS (stream.go)
//
// Workloads:
//
//	W1  1 KiB messages, batched: produce throughput (msgs/s)
//	W2  64 MiB messages chunked in 1 MiB chunks: end-to-end MB/s
//	W3  bytes allocated per payload byte receiving W2's messages
//	W4  bytes allocated per payload byte sending W2's messages
//	W5  seek-then-read latency to a chunked message behind a 10,000-message
//	    backlog
//	W6  a producer and a Shared consumer on a 1,000-partition topic (created
//	    through the admin API), each client in a process of its own:
//	    create time, goroutines, heap, RSS (over the child's before the
//	    client), idle CPU (-w6-idle), send and
//	    receive msgs/s of 1 KiB messages, close time and goroutines left
//	    (w6.go)
//	W7  a new process, as a short-lived program: send three 64 MiB chunked
//	    messages, receive them, seek to the second by the id Send returned
//	    and receive it again (the seek-then-receive time), then 20,000 1 KiB
//	    SendAsync (msgs/s) (w7.go)
//	stream  (only with -w stream) one 1 GiB message (-stream-size) streamed
//	    on both sides (SendReader, ReceiveStream) beside the official
//	    client's whole-message Send and Receive and the raw relay, each
//	    producer and consumer in a process of its own: time and each
//	    process's peak RSS
//
// With W2 it also runs the raw baseline: W2's payload through the same
// topology with no Pulsar protocol (this process -> a relay child process
// -> this process, loopback TCP, writes of the 1 MiB chunk size), and
// reports W2 as a fraction of it, and the CPU seconds per GB moved of this
// process and of the broker (or relay) process, from rusage and
// /proc/<pid>/stat. -cpuprofile and -stub-cpuprofile write CPU profiles of
// the clients and of the stub child; -clients ours (or theirs) measures one
// client alone, so that the profiles are that client's, and computes no
// ratio.
//
// Each workload's runs go back to back, the clients alternating run by
// run, so that both measure a workload after the same one. Before the
// measured runs, -warmup runs (default 1) go uncounted, so that the first
// client measured does not alone pay for the memory that the processes use
// for the first time. Each run's topics are deleted once
// measured (through the stub child's admin API, or -admin-url), so that
// the broker does not keep every run's messages.
//
// With -fresh, every run (and every raw baseline run) goes in a new process
// of its own (this binary with -one), against the same broker: each then
// measures a process that has never sent or received before, as a
// short-lived program, or a service's first messages, does. On a VM where
// memory a process touches for the first time is slow, that is a different
// regime from the default one (every run in this process, after -warmup
// runs), and both are worth a figure.
//
// By default the broker is a brokerstub started in a child process (this
// same binary with -serve-stub), so that the allocations measured in W3 and
// W4 are the client's alone. The last line reads
//
//	pulsarbench: w1 <ratio> w2 <ratio> w3 <ours>x/<theirs>x w4 <ours>x/<theirs>x w5 <ratio>
//
// where a ratio is ours/theirs for throughput and theirs/ours for latency:
// bigger is better for this SDK; "-" stands for a ratio not computed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "pulsarbench:", err)
		os.Exit(1)
	}
}

// config is the parsed command line.
type config struct {
	url       string
	adminURL  string // delete each run's topics here once measured; "": keep them
	quick     bool
	jsonFile  string
	serveStub string // internal: serve a stub on this address
	serveRaw  string // internal: serve the raw baseline's relay on this address
	cpuProf   string // write this process's CPU profile here
	stubProf  string // the stub child writes its CPU profile here
	reps      int
	warmup    int // runs per client before the measured ones, not counted
	w1Msgs    int
	w2Size    int
	w2Msgs    int
	backlog   int
	only      map[string]bool // workloads to run ("w1".."w5"); empty: all
	clients   []string        // the clients measured, in run order: "ours", "theirs"
	fresh     bool            // every run in a process of its own (runner.go)
	one       string          // internal: run one run ("client:workload:rep") and print its sample
	brokerPID int             // internal, with one: the broker process whose CPU is counted
	relayAddr string          // internal, with one: the raw baseline's relay
	relayPID  int             // internal, with one: the relay's pid
	// W6 (w6.go).
	w6Partitions, w6Msgs int
	w6Idle               time.Duration
	// The stream workload (stream.go), only with -w stream.
	stream      bool
	streamSize  int
	streamRole  string // internal: run one side of it
	streamTopic string // internal, with streamRole
}

// runs reports whether workload w ("w1".."w7") is selected.
func (c config) runs(w string) bool { return len(c.only) == 0 || c.only[w] }

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("pulsarbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.url, "url", "", "broker service URL; default: a brokerstub in a child process")
	fs.StringVar(&c.adminURL, "admin-url", "", "admin (web service) URL through which each run's topics are deleted once measured; default: the brokerstub child's, or none with -url (the topics are kept)")
	fs.BoolVar(&c.quick, "quick", false, "a smaller run that finishes within a minute")
	fs.StringVar(&c.jsonFile, "json", "", "also write the results as JSON to this file")
	fs.StringVar(&c.serveStub, "serve-stub", "", "internal: run a brokerstub on this address")
	fs.StringVar(&c.serveRaw, "serve-relay", "", "internal: run the raw baseline's relay on this address")
	fs.StringVar(&c.cpuProf, "cpuprofile", "", "write a CPU profile of this process (the clients) to this file")
	fs.StringVar(&c.stubProf, "stub-cpuprofile", "", "have the brokerstub child write its CPU profile to this file")
	fs.IntVar(&c.reps, "reps", 0, "runs per client and workload (default 5, quick 2)")
	fs.IntVar(&c.warmup, "warmup", 1, "runs per client before the measured ones, not counted: the first run of a process pays for memory it has never used, which on some VMs costs more than the protocol")
	clients := fs.String("clients", "ours,theirs", "comma-separated clients to measure, in run order: ours (pulsargo), theirs (the official client); with one, the ratios are not computed and a profile shows that client alone")
	fs.BoolVar(&c.fresh, "fresh", false, "run every run (and the raw baseline's) in a new process of its own, so that each measures a process that has never sent or received before, as a short-lived program or a service's first messages do; default: all runs in this process, after -warmup runs")
	fs.StringVar(&c.one, "one", "", "internal: run one run, client:workload:rep, and print its figures")
	fs.IntVar(&c.brokerPID, "broker-pid", 0, "internal, with -one: pid of the broker process")
	fs.StringVar(&c.relayAddr, "relay", "", "internal, with -one: the raw baseline's relay address")
	fs.IntVar(&c.relayPID, "relay-pid", 0, "internal, with -one: the relay's pid")
	only := fs.String("w", "", "comma-separated workloads to run (w1,w2,w5,w6,w7; w3 and w4 come with w2; stream only alone); default: all but stream")
	fs.IntVar(&c.w6Partitions, "w6-partitions", 1000, "W6's partitions")
	fs.IntVar(&c.w6Msgs, "w6-msgs", 0, "W6's messages (default 200,000, quick 20,000)")
	fs.DurationVar(&c.w6Idle, "w6-idle", 0, "how long W6 measures an idle client's CPU (default 20s, quick 2s)")
	streamSize := fs.String("stream-size", "1GiB", "the stream workload's message size (bytes, or with MiB/GiB)")
	fs.StringVar(&c.streamRole, "stream-role", "", "internal: run one side of the stream workload")
	fs.StringVar(&c.streamTopic, "stream-topic", "", "internal, with -stream-role: its topic")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	for _, w := range strings.Split(*only, ",") {
		switch w = strings.TrimSpace(strings.ToLower(w)); w {
		case "":
		case "stream":
			c.stream = true
		case "w1", "w2", "w5", "w6", "w7":
			if c.only == nil {
				c.only = map[string]bool{}
			}
			c.only[w] = true
		case "w3", "w4":
			if c.only == nil {
				c.only = map[string]bool{}
			}
			c.only["w2"] = true
		default:
			return c, fmt.Errorf("-w: unknown workload %q", w)
		}
	}
	for _, name := range strings.Split(*clients, ",") {
		switch name = strings.TrimSpace(strings.ToLower(name)); name {
		case "ours", "theirs":
			c.clients = append(c.clients, name)
		case "":
		default:
			return c, fmt.Errorf("-clients: unknown client %q (want ours or theirs)", name)
		}
	}
	if len(c.clients) == 0 {
		return c, fmt.Errorf("-clients: no client")
	}
	if c.stream && len(c.only) > 0 {
		return c, fmt.Errorf("-w stream runs alone")
	}
	n, err := parseSize(*streamSize)
	if err != nil {
		return c, fmt.Errorf("-stream-size: %w", err)
	}
	c.streamSize = n
	c.w1Msgs, c.w2Size, c.w2Msgs, c.backlog = 200_000, 64<<20, 3, 10_000
	if c.quick {
		c.w1Msgs, c.w2Msgs = 30_000, 1
	}
	if c.w6Msgs <= 0 {
		c.w6Msgs = map[bool]int{false: 200_000, true: 20_000}[c.quick]
	}
	if c.w6Idle <= 0 {
		c.w6Idle = map[bool]time.Duration{false: 20 * time.Second, true: 2 * time.Second}[c.quick]
	}
	if c.reps <= 0 {
		c.reps = 5
		if c.quick || c.stream {
			c.reps = 2
		}
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if cfg.cpuProf != "" {
		f, err := os.Create(cfg.cpuProf)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if cfg.serveStub != "" || cfg.serveRaw != "" {
		ctx, cancel := untilStdinCloses(ctx)
		defer cancel()
		if cfg.serveRaw != "" {
			return serveRelay(ctx, cfg.serveRaw, func(a string) { fmt.Fprintln(stdout, "child-addr", a) })
		}
		return serveStub(ctx, cfg.serveStub, stdout)
	}
	if cfg.one != "" {
		return runOne(ctx, cfg, stdout)
	}
	if cfg.streamRole != "" {
		return streamRole(ctx, cfg, stdout)
	}
	url, cpu := cfg.url, cpuClock{}
	if url == "" {
		args := []string{"-serve-stub", "127.0.0.1:0"}
		if cfg.stubProf != "" {
			args = append(args, "-cpuprofile", cfg.stubProf)
		}
		stub, err := startChild(ctx, args...)
		if err != nil {
			return err
		}
		defer stub.stop()
		url, cpu.child = stub.addr, stub.pid()
		if cfg.adminURL == "" {
			cfg.adminURL = stub.web
		}
	}
	var relay *childProcess
	if cfg.stream || cfg.runs("w2") {
		var err error
		if relay, err = startChild(ctx, "-serve-relay", "127.0.0.1:0"); err != nil {
			return err
		}
		defer relay.stop()
	}
	fmt.Fprintf(stdout, "pulsarbench: broker %s, %d runs per client and workload\n", url, cfg.reps)
	if cfg.stream {
		return streamBench(ctx, cfg, url, relay, stdout)
	}
	started := time.Now()
	res, err := benchmark(ctx, cfg, url, cpu, relay, stdout)
	if err != nil {
		return err
	}
	res.Elapsed = time.Since(started).Round(time.Millisecond).String()
	printTable(stdout, res)
	if cfg.jsonFile != "" {
		b, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(cfg.jsonFile, b, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintln(stdout, res.summary())
	return nil
}

// parseSize parses a size in bytes, or with a KiB, MiB or GiB suffix.
func parseSize(s string) (int, error) {
	mult := 1
	for _, u := range []struct {
		suffix string
		m      int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = v, u.m
			break
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}
