package main

import (
	"bytes"
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

// TestQuickstartStream runs the -stream mode with a payload larger than
// MaxPendingChunkedBytes, so that it is streamed on receipt.
func TestQuickstartStream(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 300 MiB")
	}
	var out bytes.Buffer
	if err := run([]string{"-stream", "-size", "300MiB"}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"streamed and verified 300.0 MiB", "streamed on receipt: true", "streamed it again after the seek", "peak RSS"} {
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
