package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// Status is how one official test ended.
type Status string

const (
	Passed  Status = "pass"
	Failed  Status = "fail"
	Skipped Status = "skip"
	// NotBuilt: the test does not compile against pulsargo (-client
	// pulsargo), so it did not run.
	NotBuilt Status = "not built"
)

// Result is one official test's outcome.
type Result struct {
	censusRow
	Status   Status
	Reason   string // for a failure or skip: the first lines that say why
	Duration time.Duration
	Log      string // the test's output; the stub's log is beside it
}

// stubListening starts the line cmd/brokerstub prints once it accepts
// connections.
const stubListening = "brokerstub: listening on "

// stubWebService starts the second line it prints, once its web service
// accepts connections.
const stubWebService = "brokerstub: web service on "

// startStub starts a fresh, in-memory brokerstub on p.Addr (web service on
// p.HTTPAddr) from the official CI's own standalone.conf, logging to
// logPath, and makes the admin calls the official CI makes before its tests
// (setupAdmin). It returns once the stub accepts connections.
func startStub(p *prepared, logPath string) (stop func(), err error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(p.Stub, "-config", p.Conf, "-addr", p.Addr, "-http-addr", p.HTTPAddr,
		"-tls-addr", p.TLSAddr, "-https-addr", p.HTTPSAddr)
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		_ = logf.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		_ = logf.Close()
		return nil, err
	}
	stop = func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		_ = logf.Close()
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		ok := sc.Scan() && strings.HasPrefix(sc.Text(), stubListening) &&
			sc.Scan() && strings.HasPrefix(sc.Text(), stubWebService)
		ready <- ok
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case ok := <-ready:
		if !ok {
			break
		}
		if err := setupAdmin("http://"+p.HTTPAddr, filepath.Join(p.Src, adminToken)); err != nil {
			stop()
			return nil, fmt.Errorf("admin set-up of the stub (log: %s): %w", logPath, err)
		}
		return stop, nil
	case <-time.After(30 * time.Second):
	}
	stop()
	return nil, fmt.Errorf("brokerstub did not start on %s (log: %s)", p.Addr, logPath)
}

// topResult matches the line go test prints when a top-level test ends.
var topResult = regexp.MustCompile(`^--- (PASS|FAIL|SKIP): (\S+) \(([0-9.]+)s\)`)

// reasonLine matches the lines of a failure that say why: t.Error output
// (file:line:), testify's Error:, expected: and actual: fields, panics,
// timeouts and races.
var reasonLine = regexp.MustCompile(`^\s+\S+_test\.go:\d+: \S|^\s+(Error|expected|actual)\s*:\s|^panic: |^WARNING: DATA RACE|race detected`)

// runOne runs one official test in its own process against a fresh stub,
// bounded by timeout.
func runOne(p *prepared, r censusRow, timeout time.Duration) (res Result) {
	res = Result{censusRow: r, Log: filepath.Join(p.Work, "logs", r.Test+".log")}
	stubLog := filepath.Join(p.Work, "logs", r.Test+".stub.log")
	stop, err := startStub(p, stubLog)
	if err != nil {
		res.Status, res.Reason = Failed, err.Error()
		return res
	}
	defer func() {
		stop()
		// A race the stub reports fails the test, whatever the client saw.
		if b, err := os.ReadFile(stubLog); err == nil && strings.Contains(string(b), "WARNING: DATA RACE") {
			res.Status, res.Reason = Failed, "data race in brokerstub (see its log) | "+res.Reason
		}
	}()

	// -test.timeout makes the test binary panic with every goroutine's
	// stack when the test hangs; the context is the backstop.
	ctx, cancel := context.WithTimeout(context.Background(), timeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.TestBin, "-test.run", "^"+r.Test+"$", "-test.v",
		"-test.count", "1", "-test.timeout", timeout.String())
	cmd.Dir = p.PkgDir // the pulsar package's tests read ../integration-tests/...
	start := time.Now()
	out, runErr := cmd.CombinedOutput()
	res.Duration = time.Since(start)
	if err := os.WriteFile(res.Log, out, 0o644); err != nil {
		res.Status, res.Reason = Failed, err.Error()
		return res
	}
	res.Status, res.Reason = classify(r.Test, string(out), runErr, timeout)
	return res
}

// classify reads a test binary's -test.v output for test's outcome.
func classify(test, out string, runErr error, timeout time.Duration) (Status, string) {
	status := Status("")
	var reasons []string
	for _, line := range strings.Split(out, "\n") {
		if m := topResult.FindStringSubmatch(line); m != nil && m[2] == test {
			status = map[string]Status{"PASS": Passed, "FAIL": Failed, "SKIP": Skipped}[m[1]]
		}
		if reasonLine.MatchString(line) && len(reasons) < 4 {
			reasons = append(reasons, strings.TrimSpace(line))
		}
		if strings.HasPrefix(line, "panic: test timed out") {
			status, reasons = Failed, []string{fmt.Sprintf("timed out after %v", timeout)}
			break
		}
	}
	switch {
	case strings.Contains(out, "testing: warning: no tests to run"):
		return Skipped, "not in the test binary (build tag?)"
	case status == "" && errors.Is(runErr, context.DeadlineExceeded):
		return Failed, fmt.Sprintf("killed: no result %v after the %v test timeout", 30*time.Second, timeout)
	case status == "":
		return Failed, strings.Join(append(reasons, fmt.Sprintf("no result line (exit: %v)", runErr)), " | ")
	case status == Passed && runErr != nil:
		// A race reported after the test's PASS line fails the binary.
		return Failed, strings.Join(append(reasons, fmt.Sprintf("exit: %v", runErr)), " | ")
	case status == Skipped:
		return Skipped, skipReason(out)
	case status == Passed:
		return Passed, "" // what a passing test logged is no reason
	}
	return status, strings.Join(reasons, " | ")
}

// skipReason is the first line a skipped test logged.
func skipReason(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if t := strings.TrimSpace(line); strings.Contains(t, "_test.go:") {
			return t
		}
	}
	return ""
}

// runAll runs the tests one after the other, calling progress after each;
// it starts none after ctx ends.
func runAll(ctx context.Context, p *prepared, tests []censusRow, timeout time.Duration, progress func(Result)) ([]Result, error) {
	if err := os.MkdirAll(filepath.Join(p.Work, "logs"), 0o755); err != nil {
		return nil, err
	}
	results := make([]Result, 0, len(tests))
	for _, r := range tests {
		if ctx.Err() != nil {
			return results, fmt.Errorf("stopped after %d of %d tests: %w", len(results), len(tests), ctx.Err())
		}
		var res Result
		if p.Built != nil && !p.Built[r.Test] {
			res = Result{censusRow: r, Status: NotBuilt, Reason: "does not compile against the client"}
		} else {
			res = runOne(p, r, timeout)
		}
		results = append(results, res)
		if progress != nil {
			progress(res)
		}
	}
	return results, nil
}
