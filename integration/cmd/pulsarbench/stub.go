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

// serveStub runs a brokerstub on addr until ctx ends, announcing its
// service and web service URLs on stdout.
func serveStub(ctx context.Context, addr string, stdout io.Writer) error {
	b, err := brokerstub.Start(brokerstub.Options{Addr: addr, MaxMessageSize: 5 << 20})
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Fprintln(stdout, "child-addr", b.URL(), b.WebServiceURL())
	<-ctx.Done()
	return nil
}

// untilStdinCloses returns a context that ends with ctx or when the parent
// goes away (stdin closes), so that a child stops — and writes its profile
// — when the parent is done with it.
func untilStdinCloses(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	return ctx, cancel
}

// childProcess is a brokerstub or relay running in a child process.
type childProcess struct {
	addr  string // the address it announced
	web   string // a stub's web service URL, announced after addr
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// startChild re-runs this binary with args and waits for the address it
// announces.
func startChild(ctx context.Context, args ...string) (*childProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe, args...)
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
	p := &childProcess{cmd: cmd, stdin: stdin}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "child-addr "); ok {
				lines <- u
			}
		}
	}()
	select {
	case line := <-lines:
		p.addr, p.web, _ = strings.Cut(line, " ")
		return p, nil
	case <-time.After(30 * time.Second):
		p.stop()
		return nil, fmt.Errorf("child %v did not start", args)
	}
}

func (p *childProcess) pid() int { return p.cmd.Process.Pid }

func (p *childProcess) stop() {
	_ = p.stdin.Close()
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
	}
}
