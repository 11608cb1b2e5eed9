package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// w5Size is the size of W5's chunked message.
const w5Size = 8 << 20

// payloads returns the messages the workloads send: 1 KiB (W1, and W5's
// backlog) and W2's random bytes (W5's message is its start).
func payloads(cfg config) (small, big []byte, err error) {
	small = make([]byte, 1024)
	big = make([]byte, max(cfg.w2Size, w5Size))
	if _, err := rand.Read(big); err != nil {
		return nil, nil, err
	}
	return small, big[:cfg.w2Size], nil
}

// runner runs one run of a client or of the raw baseline: in this process,
// or (-fresh) in a new child process (this binary with -one) that prints
// its sample.
type runner struct {
	cfg        config
	url        string
	cpu        cpuClock
	relay      *childProcess
	small, big []byte
	inChild    bool
	// oneRun: this process is a -one child, which runs the run itself.
	oneRun bool
}

// ownProcess reports whether workload w runs in a process of its own
// whatever -fresh says: W6 measures a process's goroutines, heap and RSS,
// and W7 a process that has never sent or received before.
func ownProcess(w string) bool { return w == "w6" || w == "w7" }

// client runs workload w of client name ("ours", "theirs") once and fills
// in out.
func (r runner) client(ctx context.Context, name, w string, rep int, out *sample) error {
	if r.inChild || ownProcess(w) && !r.oneRun {
		return r.child(ctx, fmt.Sprintf("%s:%s:%d", name, w, rep), out)
	}
	if w == "w6" {
		return runW6(ctx, r.cfg, name, r.url, r.small, out)
	}
	s, err := newSide(name, r.url)
	if err != nil {
		return err
	}
	defer s.close()
	return runWorkload(ctx, r.cfg, w, s, r.cpu, rep, r.small, r.big, out)
}

// raw runs the raw baseline once and fills in out.
func (r runner) raw(ctx context.Context, rep int, out *sample) error {
	if r.inChild {
		return r.child(ctx, fmt.Sprintf("raw:w2:%d", rep), out)
	}
	return runRaw(r.cfg, r.relay.addr, r.relay.pid(), r.big, out)
}

// child runs one run in a new process and decodes the sample it prints.
func (r runner) child(ctx context.Context, one string, out *sample) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	args := []string{"-one", one, "-url", r.url, "-admin-url", r.cfg.adminURL, "-broker-pid", strconv.Itoa(r.cpu.child)}
	if r.relay != nil {
		args = append(args, "-relay", r.relay.addr, "-relay-pid", strconv.Itoa(r.relay.pid()))
	}
	if r.cfg.quick {
		args = append(args, "-quick")
	}
	args = append(args, "-w6-partitions", strconv.Itoa(r.cfg.w6Partitions), "-w6-msgs", strconv.Itoa(r.cfg.w6Msgs),
		"-w6-idle", r.cfg.w6Idle.String())
	cmd := exec.CommandContext(ctx, exe, args...)
	tail := &stderrTail{w: os.Stderr}
	cmd.Stderr = tail
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	var got sample
	found, decodeErr := readSample(stdout, &got)
	if err := cmd.Wait(); err != nil {
		return &failedRun{err: fmt.Errorf("run %s: %w", one, err), detail: tail.lines()}
	}
	if decodeErr != nil || !found {
		return fmt.Errorf("run %s printed no sample (%v)", one, decodeErr)
	}
	out.take(strings.Split(one, ":")[1], got)
	return nil
}

// take copies workload w's figures from s into the sample, leaving the
// other workloads' figures as they are (one sample holds a run of every
// workload, and a child measures one).
func (s *sample) take(w string, from sample) {
	switch w {
	case "w1":
		s.W1MsgsPerSec = from.W1MsgsPerSec
	case "w2":
		s.W2MBPerSec, s.W2SendMs, s.W2RecvMs = from.W2MBPerSec, from.W2SendMs, from.W2RecvMs
		s.W3AllocX, s.W4AllocX = from.W3AllocX, from.W4AllocX
		s.W2ClientCPU, s.W2BrokerCPU = from.W2ClientCPU, from.W2BrokerCPU
	case "w6":
		s.W6CreateMs, s.W6Goroutines, s.W6HeapMB, s.W6RSSMB, s.W6IdleCPUMs = from.W6CreateMs, from.W6Goroutines, from.W6HeapMB, from.W6RSSMB, from.W6IdleCPUMs
		s.W6RSSBaseMB, s.W6RecvCPUUs = from.W6RSSBaseMB, from.W6RecvCPUUs
		s.W6SendPerSec, s.W6RecvPerSec, s.W6CloseMs, s.W6GoroutinesLeft = from.W6SendPerSec, from.W6RecvPerSec, from.W6CloseMs, from.W6GoroutinesLeft
	case "w7":
		s.W7SeekMs, s.W7SendPerSec = from.W7SeekMs, from.W7SendPerSec
	default:
		s.W5Millis, s.W5FirstMs = from.W5Millis, from.W5FirstMs
	}
}

// samplePrefix starts the line on which a -one child prints its sample.
const samplePrefix = "sample "

// readSample reads a child's output up to its end and decodes the sample
// line into out; found reports whether there was one.
func readSample(r io.Reader, out *sample) (found bool, err error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if js, ok := strings.CutPrefix(sc.Text(), samplePrefix); ok && err == nil {
			err = json.Unmarshal([]byte(js), out)
			found = err == nil
		}
	}
	if err == nil {
		err = sc.Err()
	}
	return found, err
}

// runOne is the -one child: it runs one run, "client:workload:rep" (client
// "raw" is the raw baseline), and prints its sample as JSON.
func runOne(ctx context.Context, cfg config, stdout io.Writer) error {
	parts := strings.Split(cfg.one, ":")
	if len(parts) != 3 {
		return fmt.Errorf("-one %q: want client:workload:rep", cfg.one)
	}
	rep, err := strconv.Atoi(parts[2])
	if err != nil {
		return fmt.Errorf("-one %q: %w", cfg.one, err)
	}
	var small, big []byte
	if parts[1] == "w6" {
		// W6 sends 1 KiB messages only: no W2 payload in its RSS.
		small = make([]byte, 1024)
	} else if small, big, err = payloads(cfg); err != nil {
		return err
	}
	var got sample
	if parts[0] == "raw" {
		err = runRaw(cfg, cfg.relayAddr, cfg.relayPID, big, &got)
	} else {
		r := runner{cfg: cfg, url: cfg.url, cpu: cpuClock{child: cfg.brokerPID}, small: small, big: big, oneRun: true}
		err = r.client(ctx, parts[0], parts[1], rep, &got)
	}
	if err != nil {
		return err
	}
	b, err := json.Marshal(got)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s%s\n", samplePrefix, b)
	return err
}

// newSide connects client name ("ours" or "theirs") to url.
func newSide(name, url string) (side, error) {
	switch name {
	case "ours":
		return newOurs(url)
	case "theirs":
		return newTheirs(url)
	}
	return nil, fmt.Errorf("unknown client %q", name)
}
