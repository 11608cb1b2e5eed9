package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	pb "github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

func TestServerFlagsDefaults(t *testing.T) {
	cfg, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := brokerstub.Options{
		Addr:                  "127.0.0.1:6650",
		HTTPAddr:              "127.0.0.1:8080",
		MaxMessageSize:        5242880,
		LedgerRolloverEntries: 50000,
		CursorFlushInterval:   60 * time.Second,
		Console:               true,
	}
	if !reflect.DeepEqual(cfg.opts, want) {
		t.Errorf("defaults = %+v, want %+v", cfg.opts, want)
	}
	if cfg.logLevel != slog.LevelInfo {
		t.Errorf("log level = %v, want info", cfg.logLevel)
	}
}

func TestServerFlagsAll(t *testing.T) {
	cfg, err := parseFlags([]string{
		"-addr", "127.0.0.1:0", "-max-message-size", "1048576", "-data-dir", "/tmp/x",
		"-cursor-flush-interval", "200ms", "-ledger-rollover", "7", "-log-level", "DEBUG",
		"-disable-batch-index-ack", "-http-addr", "127.0.0.1:0", "-advertised-address", "localhost", "-pprof",
		"-console=false",
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := brokerstub.Options{
		Addr:                  "127.0.0.1:0",
		HTTPAddr:              "127.0.0.1:0",
		AdvertisedAddress:     "localhost",
		MaxMessageSize:        1 << 20,
		DataDir:               "/tmp/x",
		CursorFlushInterval:   200 * time.Millisecond,
		LedgerRolloverEntries: 7,
		DisableBatchIndexAck:  true,
		Profiling:             true,
	}
	if !reflect.DeepEqual(cfg.opts, want) {
		t.Errorf("options = %+v, want %+v", cfg.opts, want)
	}
	if cfg.logLevel != slog.LevelDebug {
		t.Errorf("log level = %v, want debug", cfg.logLevel)
	}
}

func TestServerFlagsErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // in the error message
	}{
		{[]string{"-max-message-size", "abc"}, "-max-message-size"},
		{[]string{"-max-message-size", "0"}, "-max-message-size 0"},
		{[]string{"-max-message-size", "-1"}, "-max-message-size -1"},
		{[]string{"-max-message-size", "2147483647"}, "want 1 to"},
		{[]string{"-cursor-flush-interval", "60"}, "-cursor-flush-interval"},
		{[]string{"-cursor-flush-interval", "0s"}, "positive duration"},
		{[]string{"-ledger-rollover", "0"}, "-ledger-rollover 0"},
		{[]string{"-log-level", "trace"}, `"trace"`},
		{[]string{"-addr", "6650"}, `invalid -addr "6650"`},
		{[]string{"-http-addr", "8080"}, `invalid -http-addr "8080"`},
		{[]string{"-config", "/nonexistent/standalone.conf"}, "-config"},
		{[]string{"-no-such-flag"}, "no-such-flag"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-tls-addr", "127.0.0.1:0"}, "need a -config with tlsCertificateFilePath"},
		{[]string{"-https-addr", "127.0.0.1:0"}, "need a -config with tlsCertificateFilePath"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			_, err := parseFlags(tc.args, &stderr)
			var ue usageError
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v, want a usageError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want it to contain %q", err, tc.want)
			}
			if stderr.Len() != 0 {
				t.Errorf("parseFlags wrote %q; the caller reports errors", stderr.String())
			}
			var out bytes.Buffer
			if code := report(err, &out); code != 2 {
				t.Errorf("exit status = %d, want 2", code)
			}
			if !strings.HasPrefix(out.String(), "brokerstub: ") || !strings.Contains(out.String(), "-h") {
				t.Errorf("report wrote %q", out.String())
			}
		})
	}
}

func TestServerFlagsHelp(t *testing.T) {
	var stderr bytes.Buffer
	_, err := parseFlags([]string{"-h"}, &stderr)
	if !errors.Is(err, errHelp) {
		t.Fatalf("err = %v, want errHelp", err)
	}
	for _, s := range []string{"Usage: brokerstub", listeningPrefix, "-cursor-flush-interval", "-data-dir"} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("usage lacks %q:\n%s", s, stderr.String())
		}
	}
	if code := report(err, io.Discard); code != 0 {
		t.Errorf("exit status for -h = %d, want 0", code)
	}
}

func TestServerReport(t *testing.T) {
	if code := report(nil, io.Discard); code != 0 {
		t.Errorf("report(nil) = %d", code)
	}
	var out bytes.Buffer
	code := report(errors.New("brokerstub: listen: address already in use"), &out)
	if code != 1 {
		t.Errorf("exit status = %d, want 1", code)
	}
	if got, want := out.String(), "brokerstub: listen: address already in use\n"; got != want {
		t.Errorf("report wrote %q, want %q", got, want)
	}
}

// lockedBuffer is a bytes.Buffer safe for the broker's log goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// server is run in a goroutine.
type server struct {
	url    string
	web    string // web service URL, from the second line
	cancel context.CancelFunc
	done   chan error
	stdout *lockedBuffer // everything written to stdout
	stderr *lockedBuffer
}

// startRun runs the command with args until the test ends or stop is
// called, and waits for its listening line.
func startRun(t *testing.T, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{cancel: cancel, done: make(chan error, 1), stdout: &lockedBuffer{}, stderr: &lockedBuffer{}}
	pr, pw := io.Pipe()
	go func() {
		err := run(ctx, args, pw, s.stderr)
		_ = pw.Close()
		s.done <- err
	}()
	t.Cleanup(func() { s.stop(t) })

	line := make(chan [2]string, 1)
	go func() {
		br := bufio.NewReader(pr)
		l, _ := br.ReadString('\n')
		l2, _ := br.ReadString('\n')
		_, _ = s.stdout.Write([]byte(l + l2))
		line <- [2]string{l, l2}
		_, _ = io.Copy(s.stdout, br)
	}()
	select {
	case ls := <-line:
		l := ls[0]
		url, ok := strings.CutPrefix(strings.TrimSuffix(l, "\n"), listeningPrefix)
		if !ok || !strings.HasPrefix(url, "pulsar://127.0.0.1:") {
			t.Fatalf("stdout line %q, want %q + pulsar://127.0.0.1:PORT; stderr:\n%s", l, listeningPrefix, s.stderr)
		}
		s.url = url
		web, ok := strings.CutPrefix(strings.TrimSuffix(ls[1], "\n"), webServicePrefix)
		if !ok || !strings.HasPrefix(web, "http://127.0.0.1:") {
			t.Fatalf("second stdout line %q, want %q + http://127.0.0.1:PORT; stderr:\n%s", ls[1], webServicePrefix, s.stderr)
		}
		s.web = web
	case err := <-s.done:
		t.Fatalf("run returned before listening: %v; stderr:\n%s", err, s.stderr)
	case <-time.After(10 * time.Second):
		t.Fatalf("no listening line after 10 s; stderr:\n%s", s.stderr)
	}
	return s
}

// stop cancels the run and returns its error; later calls return nil.
func (s *server) stop(t *testing.T) error {
	t.Helper()
	s.cancel()
	select {
	case err, ok := <-s.done:
		if ok {
			close(s.done)
		}
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return 10 s after cancel")
		return nil
	}
}

// handshake connects to addr with the Pulsar protocol and returns the
// broker's CONNECTED.
func handshake(t *testing.T, addr string) *pb.CommandConnected {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	version := int32(21)
	cmd, err := wire.NewCommand(pb.BaseCommand_CONNECT, &pb.CommandConnect{
		ClientVersion: new("brokerstub-cmd-test"), ProtocolVersion: &version,
	})
	if err != nil {
		t.Fatal(err)
	}
	frame, err := wire.AppendCommand(nil, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nc.Write(frame); err != nil {
		t.Fatal(err)
	}
	f, err := wire.NewReader(nc, 0).ReadFrame()
	if err != nil {
		t.Fatalf("read CONNECTED: %v", err)
	}
	if f.Cmd.GetType() != pb.BaseCommand_CONNECTED {
		t.Fatalf("got %v, want CONNECTED", f.Cmd.GetType())
	}
	return f.Cmd.GetConnected()
}

func TestServerStartStop(t *testing.T) {
	s := startRun(t, "-addr", "127.0.0.1:0", "-max-message-size", "1048576", "-log-level", "debug")
	addr := strings.TrimPrefix(s.url, "pulsar://")
	if got := handshake(t, addr).GetMaxMessageSize(); got != 1<<20 {
		t.Errorf("CONNECTED max_message_size = %d, want %d", got, 1<<20)
	}
	if err := s.stop(t); err != nil {
		t.Fatalf("run after cancel: %v", err)
	}
	if got, want := s.stdout.String(), listeningPrefix+s.url+"\n"+webServicePrefix+s.web+"\n"; got != want {
		t.Errorf("stdout = %q, want exactly %q", got, want)
	}
	logs := s.stderr.String()
	for _, want := range []string{"level=INFO", "brokerstub started", "level=DEBUG", "shutting down", "stopped"} {
		if !strings.Contains(logs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, logs)
		}
	}
	if nc, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		nc.Close()
		t.Errorf("%s still accepts connections after stop", addr)
	}
}

func TestServerDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	args := []string{"-addr", "127.0.0.1:0", "-data-dir", dir, "-log-level", "warn"}
	s := startRun(t, args...)
	handshake(t, strings.TrimPrefix(s.url, "pulsar://"))
	if err := s.stop(t); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "brokerstub.db")); err != nil {
		t.Fatalf("data dir: %v", err)
	}
	if logs := s.stderr.String(); strings.Contains(logs, "level=INFO") {
		t.Errorf("-log-level warn logged info:\n%s", logs)
	}
	// The graceful stop released the store: a second server opens it at once.
	s = startRun(t, args...)
	if err := s.stop(t); err != nil {
		t.Fatal(err)
	}
}

func TestServerListenFailure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = run(ctx, []string{"-addr", ln.Addr().String()}, &stdout, &stderr)
	if err == nil {
		t.Fatal("run on a busy address succeeded")
	}
	if !strings.Contains(err.Error(), "listen") {
		t.Errorf("err = %v, want a listen error", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
	var out bytes.Buffer
	if code := report(err, &out); code != 1 {
		t.Errorf("exit status = %d, want 1", code)
	}
	if !strings.HasPrefix(out.String(), "brokerstub: listen") {
		t.Errorf("report wrote %q", out.String())
	}
}

func TestServerBadFlags(t *testing.T) {
	var stdout bytes.Buffer
	err := run(context.Background(), []string{"-max-message-size", "x"}, &stdout, io.Discard)
	var ue usageError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want a usageError", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}

// TestServerFreePortsTogether: -addr without -http-addr gives the web
// service a free port on the same host, so servers placed by tests do not
// contend for 8080; an explicit -http-addr wins.
func TestServerFreePortsTogether(t *testing.T) {
	cfg, err := parseFlags([]string{"-addr", "127.0.0.1:0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.opts.HTTPAddr != "127.0.0.1:0" {
		t.Errorf("HTTPAddr = %q, want 127.0.0.1:0", cfg.opts.HTTPAddr)
	}
	if cfg, err = parseFlags([]string{"-addr", "127.0.0.1:7000"}, io.Discard); err != nil || cfg.opts.HTTPAddr != "127.0.0.1:0" {
		t.Errorf("HTTPAddr = %q, %v; want 127.0.0.1:0", cfg.opts.HTTPAddr, err)
	}
	cfg, err = parseFlags([]string{"-addr", "127.0.0.1:0", "-http-addr", "127.0.0.1:9999"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.opts.HTTPAddr != "127.0.0.1:9999" {
		t.Errorf("HTTPAddr = %q, want the flag's", cfg.opts.HTTPAddr)
	}
}
