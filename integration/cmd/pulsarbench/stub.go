package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
)

// serveStub runs a brokerstub on addr until ctx ends, announcing its URL on
// stdout.
func serveStub(ctx context.Context, addr string, stdout io.Writer) error {
	b, err := brokerstub.Start(brokerstub.Options{Addr: addr, MaxMessageSize: 5 << 20})
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Fprintln(stdout, "stub-url", b.URL())
	// Stop when the parent goes away (stdin closes) or on a signal.
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		_ = b.Close()
		os.Exit(0)
	}()
	<-ctx.Done()
	return nil
}

// stubProcess is a brokerstub running in a child process.
type stubProcess struct {
	url   string
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// startStubProcess re-runs this binary with -serve-stub and waits for the
// stub's URL.
func startStubProcess(ctx context.Context) (*stubProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe, "-serve-stub", "127.0.0.1:0")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &stubProcess{cmd: cmd, stdin: stdin}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "stub-url "); ok {
				lines <- u
			}
		}
	}()
	select {
	case p.url = <-lines:
		return p, nil
	case <-time.After(30 * time.Second):
		p.stop()
		return nil, fmt.Errorf("brokerstub child did not start")
	}
}

func (p *stubProcess) stop() {
	_ = p.stdin.Close()
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
	}
}
