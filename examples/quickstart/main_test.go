package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestQuickstartRuns runs the quickstart end to end on its in-process stub
// with a smaller payload.
func TestQuickstartRuns(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-size", "12MiB"}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"3 of 3 chunks acknowledged", "MiB/s", "received and verified", "read it again after the seek"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestQuickstartStream runs the -stream mode: 12 MiB (read from memory on
// receipt, under MaxPendingChunkedBytes), or with
// PULSARGO_QUICKSTART_STREAM=1 300 MiB, larger than it, so that it is
// streamed on receipt (too slow under -race for every CI run).
func TestQuickstartStream(t *testing.T) {
	size, streamed := "12MiB", "false"
	if os.Getenv("PULSARGO_QUICKSTART_STREAM") != "" {
		size, streamed = "300MiB", "true"
	}
	var out bytes.Buffer
	if err := run([]string{"-stream", "-size", size}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"streamed and verified", "streamed on receipt: " + streamed, "streamed it again after the seek", "peak RSS"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"10": 10, "2KiB": 2048, "64MiB": 64 << 20, "1GiB": 1 << 30} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "x", "-1", "0MiB"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) succeeded", bad)
		}
	}
}
