package main

import (
	"errors"
	"strings"
	"testing"
)

// A child's sample line is found among its other output and decoded; a
// run's sample keeps the figures of the workloads the child did not run.
func TestReadSampleTakesOneWorkload(t *testing.T) {
	out := "log line\n" + samplePrefix + `{"W2MBPerSec":512.5,"W1MsgsPerSec":0,"W3AllocX":1.02}` + "\nmore\n"
	var got sample
	found, err := readSample(strings.NewReader(out), &got)
	if err != nil || !found {
		t.Fatalf("readSample: found %v, %v", found, err)
	}
	run := sample{W1MsgsPerSec: 700_000}
	run.take("w2", got)
	if run.W1MsgsPerSec != 700_000 || run.W2MBPerSec != 512.5 || run.W3AllocX != 1.02 {
		t.Errorf("after take: %+v", run)
	}
}

func TestReadSampleWithoutSample(t *testing.T) {
	found, err := readSample(strings.NewReader("no sample here\n"), &sample{})
	if found || err != nil {
		t.Errorf("found %v, err %v; want neither", found, err)
	}
	if _, err := readSample(strings.NewReader(samplePrefix+"{not json\n"), &sample{}); err == nil {
		t.Error("a malformed sample line decoded")
	}
}

// A child's stderr is passed through, and a failure keeps the first lines
// of its panic (not the log lines before it), whatever the writes' sizes.
func TestStderrTailKeepsPanic(t *testing.T) {
	var through strings.Builder
	tail := &stderrTail{w: &through}
	out := "log one\nlog two\npanic: runtime error: invalid memory address or nil pointer dereference\n\ngoroutine 68 [running]:\n"
	for i := range 30 {
		out += "frame " + strings.Repeat("x", i) + "\n"
	}
	for len(out) > 0 { // odd-sized writes split lines
		n := min(7, len(out))
		if _, err := tail.Write([]byte(out[:n])); err != nil {
			t.Fatal(err)
		}
		out = out[n:]
	}
	got := strings.Split(tail.lines(), "\n")
	if len(got) != panicLines || !strings.HasPrefix(got[0], "panic: runtime error") || got[2] != "goroutine 68 [running]:" {
		t.Errorf("kept %d lines: %q", len(got), got)
	}
	if !strings.Contains(through.String(), "log one\n") || !strings.Contains(through.String(), "frame xxxxx") {
		t.Error("stderr not passed through")
	}
	// Without a panic, the last lines are kept.
	quiet := &stderrTail{}
	_, _ = quiet.Write([]byte("a\nb\nexit without a panic"))
	if got := quiet.lines(); got != "a\nb\nexit without a panic" {
		t.Errorf("kept %q", got)
	}
}

// A failed run counts in no median of its workload, and its other
// workloads' figures still count; a figure whose every run failed is
// absent, and the table says so.
func TestFailedRunCountsInNoMedian(t *testing.T) {
	ss := []sample{{W1MsgsPerSec: 100, W6RecvPerSec: 10}, {W1MsgsPerSec: 300, W6RecvPerSec: 1000}, {W1MsgsPerSec: 200, W6RecvPerSec: 30}}
	ss[1].fail("w6", &failedRun{err: errors.New("run theirs:w6:1: exit status 2"), detail: "panic: boom"})
	got := reduce(ss)
	if got["w6recv"] != 20 || got["w1"] != 200 {
		t.Errorf("w6recv %v (want 20, the median of the runs that did not fail), w1 %v (want 200)", got["w6recv"], got["w1"])
	}
	all := []sample{{}}
	all[0].fail("w6", errors.New("failed"))
	if _, ok := reduce(all)["w6recv"]; ok {
		t.Error("a figure whose every run failed has a median")
	}
	var table strings.Builder
	printTable(&table, Results{Ours: reduce(ss), Theirs: reduce(all), Ratios: map[string]float64{},
		Failures: []Failure{{Client: "theirs", Workload: "w6", Run: 0, Error: "run theirs:w6:0: exit status 2\npanic: boom"}}})
	for _, want := range []string{"failed runs", "run 0 w6 theirs: run theirs:w6:0: exit status 2", "      panic: boom", "failed"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
}
