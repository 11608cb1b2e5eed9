// Command testrun runs the repository's whole test suite as CI does — every
// module, with the race detector — and shows how far it is while it runs:
// each package as it finishes, and every 15 seconds the packages still
// running with the tests done out of those they declare and the test
// running now. A failing test's output is printed when it fails; the exit
// status is 1 if anything failed.
//
//	go run ./internal/testrun            # the README's test command
//	go run ./internal/testrun -- -run Seek -count 1  # after --, flags for go test
//
// It runs `go test -race -trimpath -json` in the root module, then in
// pulsar/pulsarprom, then in integration (each its own module), and reads
// the JSON events go test writes (cmd/test2json). -trimpath is the build
// mode of the go builds the tests run themselves (officialsuite builds
// cmd/brokerstub and the official client's tests with it, for a build cache
// that holds across its scratch directories; buildServer and others copy
// the test binary's mode): with every build in one mode, the standard
// library, the SDK and the official client's dependencies are compiled
// once, not once per mode (minutes of CPU on a fresh machine).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"time"
)

// modules are the repository's modules, in the order they are tested, with
// the go test flags each needs beyond -race -json and the packages that take
// longest, named before ./... so that they start first.
var modules = []struct {
	dir   string
	flags []string
	first []string
}{
	{".", nil, []string{"./pulsar", "./brokerstub", "./internal/compress", "./brokerstub/internal/store",
		"./brokerstub/internal/ledger", "./pulsar/crypto", "./examples/quickstart", "./internal/wire"}},
	{"pulsar/pulsarprom", nil, nil},
	// -parallel 4: a good part of the integration tests wait (timeouts that
	// must pass, rates, quiet periods) and run in parallel for it; with the
	// default, GOMAXPROCS (2 here), two of them waiting hold both slots,
	// and the three officialsuite slices cannot all build at once.
	{"integration", []string{"-timeout", "30m", "-parallel", "4"}, []string{".", "./officialsuite"}},
}

// packages is what go test is given in dir: first (those of them that
// exist), then ./... . go test starts the packages' test binaries in the
// order it is given them (each once), as two at a time finish: in the
// order of ./... the longest package of the root module, pulsar, started
// last and ran alone for its last minute, one core idle.
func packages(dir string, first []string) []string {
	var pkgs []string
	for _, p := range first {
		if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err == nil && fi.IsDir() {
			pkgs = append(pkgs, p)
		}
	}
	return append(pkgs, "./...")
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout))
}

func run(ctx context.Context, args []string, out io.Writer) int {
	fs := flag.NewFlagSet("testrun", flag.ContinueOnError)
	every := fs.Duration("progress", 15*time.Second, "how often to show the packages still running")
	root := fs.String("C", ".", "the repository's root")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	// fs.Args() is what follows "--" (or the first non-flag): go test's.
	started := time.Now()
	failed := false
	for _, m := range modules {
		dir := filepath.Join(*root, m.dir)
		cmdArgs := append([]string{"test", "-race", "-trimpath", "-json"}, m.flags...)
		cmdArgs = append(cmdArgs, fs.Args()...)
		cmdArgs = append(cmdArgs, packages(dir, m.first)...)
		fmt.Fprintf(out, "== %s: go %v\n", m.dir, cmdArgs)
		ok, err := runModule(ctx, dir, cmdArgs, out, *every)
		if err != nil {
			fmt.Fprintf(out, "testrun: %s: %v\n", m.dir, err)
			return 1
		}
		failed = failed || !ok
		if ctx.Err() != nil {
			return 1
		}
	}
	elapsed := time.Since(started).Round(time.Second)
	if failed {
		fmt.Fprintf(out, "FAIL (%s)\n", elapsed)
		return 1
	}
	fmt.Fprintf(out, "PASS: every module (%s)\n", elapsed)
	return 0
}

// runModule runs go test in dir and reports progress; ok is false when a
// package failed or go test exited non-zero.
func runModule(ctx context.Context, dir string, args []string, out io.Writer, every time.Duration) (ok bool, err error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Stderr = out // build errors outside packages, go command messages
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return false, err
	}
	if err := cmd.Start(); err != nil {
		return false, err
	}
	r := newReport(out, dir, time.Now)
	done := make(chan error, 1)
	go func() { done <- r.read(stdout) }()
	tick := time.NewTicker(every)
	defer tick.Stop()
	var readErr error
wait:
	for {
		select {
		case <-tick.C:
			r.progress()
		case readErr = <-done:
			break wait
		}
	}
	waitErr := cmd.Wait()
	if readErr != nil {
		return false, readErr
	}
	return waitErr == nil && !r.failed(), nil
}
