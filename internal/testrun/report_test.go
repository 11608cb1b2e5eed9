package main

import (
	"strings"
	"testing"
	"time"
)

func feed(t *testing.T, r *report, lines ...string) {
	t.Helper()
	if err := r.read(strings.NewReader(strings.Join(lines, "\n") + "\n")); err != nil {
		t.Fatal(err)
	}
}

func TestReportShowsFailuresAndProgress(t *testing.T) {
	var out strings.Builder
	clock := time.Date(2026, 12, 6, 7, 0, 0, 0, time.UTC)
	r := newReport(&out, "../..", func() time.Time { return clock })
	feed(t, r,
		`{"Action":"start","Package":"github.com/pulsargo/sdk/internal/testrun"}`,
		`{"Action":"run","Package":"github.com/pulsargo/sdk/internal/testrun","Test":"TestA"}`,
		`{"Action":"output","Package":"github.com/pulsargo/sdk/internal/testrun","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"pass","Package":"github.com/pulsargo/sdk/internal/testrun","Test":"TestA","Elapsed":0.1}`,
		`{"Action":"run","Package":"github.com/pulsargo/sdk/internal/testrun","Test":"TestB"}`,
		`{"Action":"run","Package":"github.com/pulsargo/sdk/internal/testrun","Test":"TestB/sub"}`,
		`{"Action":"output","Package":"github.com/pulsargo/sdk/internal/testrun","Test":"TestB/sub","Output":"    b_test.go:9: the answer was 41\n"}`,
	)
	clock = clock.Add(90 * time.Second)
	r.progress()
	if got := out.String(); !strings.Contains(got, "1 of ") || !strings.Contains(got, "running TestB") || !strings.Contains(got, "90s") {
		t.Errorf("progress line: %q, want tests done of those declared, the running test and the time", got)
	}
	if r.failed() {
		t.Fatal("failed before anything failed")
	}
	feed(t, r,
		`{"Action":"fail","Package":"github.com/pulsargo/sdk/internal/testrun","Test":"TestB/sub","Elapsed":0.2}`,
		`{"Action":"fail","Package":"github.com/pulsargo/sdk/internal/testrun","Test":"TestB","Elapsed":0.2}`,
		`{"Action":"output","Package":"github.com/pulsargo/sdk/internal/testrun","Output":"FAIL\n"}`,
		`{"Action":"fail","Package":"github.com/pulsargo/sdk/internal/testrun","Elapsed":0.3}`,
	)
	got := out.String()
	for _, want := range []string{"--- FAIL github.com/pulsargo/sdk/internal/testrun TestB", "the answer was 41", "FAIL github.com/pulsargo/sdk/internal/testrun"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if !r.failed() {
		t.Error("a failed test does not fail the run")
	}
}

func TestReportBuildFailureFails(t *testing.T) {
	var out strings.Builder
	r := newReport(&out, "../..", time.Now)
	feed(t, r,
		`{"ImportPath":"github.com/pulsargo/sdk/x [github.com/pulsargo/sdk/x.test]","Action":"build-output","Output":"x.go:3:1: syntax error\n"}`,
		`{"ImportPath":"github.com/pulsargo/sdk/x [github.com/pulsargo/sdk/x.test]","Action":"build-fail"}`,
		`not json: shown as it is`,
	)
	if !r.failed() || !strings.Contains(out.String(), "syntax error") || !strings.Contains(out.String(), "not json") {
		t.Errorf("failed=%v, output:\n%s", r.failed(), out.String())
	}
}

// The slow packages go first, those that no longer exist are left out
// (go test would fail on them), and ./... follows for the rest.
func TestPackagesPutsTheSlowFirst(t *testing.T) {
	got := strings.Join(packages("../..", []string{"./pulsar", "./no/such/dir", "./internal/testrun/report.go", "./brokerstub"}), " ")
	if want := "./pulsar ./brokerstub ./..."; got != want {
		t.Errorf("packages = %s, want %s", got, want)
	}
	for _, m := range modules {
		for _, p := range m.first {
			if len(packages("../../"+m.dir, []string{p})) != 2 {
				t.Errorf("module %s lists %s first, which is not a directory", m.dir, p)
			}
		}
	}
}

// Tests that run in parallel are shown together while they run, not the
// last one started alone (nor one paused until the sequential tests end).
func TestProgressShowsParallelTests(t *testing.T) {
	var out strings.Builder
	r := newReport(&out, "../..", time.Now)
	const pkg = `"Package":"github.com/pulsargo/sdk/internal/testrun"`
	feed(t, r,
		`{"Action":"start",`+pkg+`}`,
		`{"Action":"run",`+pkg+`,"Test":"TestA"}`,
		`{"Action":"pause",`+pkg+`,"Test":"TestA"}`,
		`{"Action":"run",`+pkg+`,"Test":"TestB"}`,
		`{"Action":"pause",`+pkg+`,"Test":"TestB"}`,
		`{"Action":"run",`+pkg+`,"Test":"TestC"}`,
	)
	r.progress()
	if got := out.String(); !strings.Contains(got, "running TestC\n") {
		t.Errorf("with TestA and TestB paused: %q, want running TestC alone", got)
	}
	out.Reset()
	feed(t, r,
		`{"Action":"pass",`+pkg+`,"Test":"TestC","Elapsed":1}`,
		`{"Action":"cont",`+pkg+`,"Test":"TestA"}`,
		`{"Action":"cont",`+pkg+`,"Test":"TestB"}`,
	)
	r.progress()
	if got := out.String(); !strings.Contains(got, "1 of") || !strings.Contains(got, "running TestA, TestB\n") {
		t.Errorf("with TestA and TestB resumed: %q, want 1 done, running TestA, TestB", got)
	}
	out.Reset()
	feed(t, r, `{"Action":"pass",`+pkg+`,"Test":"TestA","Elapsed":1}`)
	r.progress()
	if got := out.String(); !strings.Contains(got, "running TestB\n") {
		t.Errorf("after TestA passed: %q, want running TestB", got)
	}
	if got := runningNames(map[string]bool{"D": true, "A": true, "C": true, "B": true, "E": true}); got != "A, B, C and 2 more" {
		t.Errorf("runningNames = %q", got)
	}
}
