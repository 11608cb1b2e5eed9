package integration

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// serverListeningPrefix starts the line cmd/brokerstub prints on stdout once
// it accepts connections; the service URL follows.
const serverListeningPrefix = "brokerstub: listening on "

// buildServer builds cmd/brokerstub into a temporary directory, as this
// test binary was built (buildFlags), and returns the binary's path.
func buildServer(t testing.TB) string {
	t.Helper()
	goBin := goTool(t)
	bin := filepath.Join(t.TempDir(), "brokerstub")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	args := append(append([]string{"build"}, buildFlags()...), "-o", bin, "github.com/pulsargo/sdk/cmd/brokerstub")
	cmd := exec.Command(goBin, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/brokerstub: %v\n%s", err, out)
	}
	return bin
}

// serverProc is a running cmd/brokerstub process.
type serverProc struct {
	cmd    *exec.Cmd
	url    string
	stderr *serverOutput
	waited bool
}

// startServer starts the brokerstub binary with args and waits for its
// listening line. The process is killed when the test ends; if the test
// failed, its log is printed.
func startServer(t testing.TB, bin string, args ...string) *serverProc {
	t.Helper()
	p := &serverProc{stderr: &serverOutput{}}
	out := &serverStdout{first: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout = out
	p.cmd.Stderr = p.stderr
	if os.Getenv("PULSARGO_DEBUG") != "" {
		p.cmd.Stderr = io.MultiWriter(p.stderr, os.Stderr)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("brokerstub %v log:\n%s", args, p.stderr)
		}
	})
	select {
	case <-out.first:
	case <-time.After(10 * time.Second):
		p.kill()
		t.Fatalf("brokerstub %v: no listening line within 10 s; stdout %q; log:\n%s", args, out.String(), p.stderr)
	}
	line := strings.TrimSuffix(out.String(), "\n")
	url, ok := strings.CutPrefix(line, serverListeningPrefix)
	if !ok || !strings.HasPrefix(url, "pulsar://127.0.0.1:") {
		t.Fatalf("brokerstub stdout %q, want %q + pulsar://127.0.0.1:PORT", line, serverListeningPrefix)
	}
	p.url = url
	return p
}

// addr returns the server's "host:port".
func (p *serverProc) addr() string { return strings.TrimPrefix(p.url, "pulsar://") }

// kill sends SIGKILL (the process gets no chance to flush anything) and
// waits for it to exit. It is idempotent.
func (p *serverProc) kill() {
	if p.waited {
		return
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	p.waited = true
}

// serverOutput is a bytes.Buffer safe for concurrent use.
type serverOutput struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *serverOutput) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *serverOutput) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serverStdout collects output and closes first when the first line is
// complete.
type serverStdout struct {
	serverOutput
	first chan struct{}
	once  sync.Once
}

func (w *serverStdout) Write(p []byte) (int, error) {
	n, err := w.serverOutput.Write(p)
	if strings.Contains(w.serverOutput.String(), "\n") {
		w.once.Do(func() { close(w.first) })
	}
	return n, err
}

// String returns the first line (with its newline) once it is complete, else
// everything written so far.
func (w *serverStdout) String() string {
	s := w.serverOutput.String()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i+1]
	}
	return s
}
