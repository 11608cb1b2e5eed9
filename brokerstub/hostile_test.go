package brokerstub

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/protocol"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
	gproto "google.golang.org/protobuf/proto"
)

// The hostile-input tests of issue #31 (rows V3-V8): each plays one
// attack in-process, bounded in time, and asserts a number.

// heapObjects returns the bytes of live heap objects after a collection.
func heapObjects() int64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// pipeFrame reads one frame from a raw connection without a buffered
// reader (so that a test of many connections holds no 32 KiB per client).
func pipeFrame(nc net.Conn) (*proto.BaseCommand, error) {
	_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	var hdr [4]byte
	if _, err := io.ReadFull(nc, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > 1<<16 {
		return nil, fmt.Errorf("frame of %d bytes", n)
	}
	buf := make([]byte, 4+n)
	copy(buf, hdr[:])
	if _, err := io.ReadFull(nc, buf[4:]); err != nil {
		return nil, err
	}
	f, err := wire.NewReader(bytes.NewReader(buf), 0).ReadFrame()
	return f.Cmd, err
}

func connectFrame(t testing.TB) []byte {
	t.Helper()
	b, err := wire.AppendCommand(nil, &proto.BaseCommand{Type: proto.BaseCommand_CONNECT.Enum(), Connect: &proto.CommandConnect{
		ClientVersion: gproto.String("hostile"), ProtocolVersion: gproto.Int32(20)}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sendHalfFrame writes the size of a 5 MiB frame and two bytes of it, one
// byte a write: on a net.Pipe a write returns once the broker has read it,
// so the broker has acted on the size when the last write returns.
func sendHalfFrame(nc net.Conn) {
	_ = nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], wire.DefaultMaxFrameSize)
	if _, err := nc.Write(hdr[:]); err != nil {
		return
	}
	_, _ = nc.Write([]byte{0})
	_, _ = nc.Write([]byte{0})
}

// V3: 1,000 connections each send the size of a 5 MiB frame and two bytes
// of it, before and after CONNECT. The broker's heap may grow by at most
// 64 MiB for them (it grew by 5 GiB: a buffer prefaulted at the claimed
// size), and a frame that large before CONNECT closes the connection.
func TestHostileHalfFrames(t *testing.T) {
	const conns, bound = 1000, 64 << 20
	for _, connected := range []bool{false, true} {
		t.Run(fmt.Sprintf("connected=%v", connected), func(t *testing.T) {
			b := RunT(t, Options{NoListener: true})
			var open []net.Conn
			t.Cleanup(func() {
				for _, nc := range open {
					_ = nc.Close()
				}
			})
			before := heapObjects()
			for i := range conns {
				nc, err := b.Dial(context.Background(), "", "")
				if err != nil {
					t.Fatal(err)
				}
				open = append(open, nc)
				if connected {
					_ = nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
					if _, err := nc.Write(connectFrame(t)); err != nil {
						t.Fatal(err)
					}
					if cmd, err := pipeFrame(nc); err != nil || cmd.GetType() != proto.BaseCommand_CONNECTED {
						t.Fatalf("connection %d: %v %v", i, cmd, err)
					}
				}
				sendHalfFrame(nc)
				if i%100 == 99 { // stop early when over: the old code would take 5 GiB
					if grew := heapObjects() - before; grew > bound {
						t.Fatalf("heap grew by %d MiB for %d half frames, want <= %d MiB", grew>>20, i+1, bound>>20)
					}
				}
			}
			grew := heapObjects() - before
			t.Logf("heap growth for %d half frames (connected=%v): %.1f MiB", conns, connected, float64(grew)/(1<<20))
			if !connected {
				// Refused at the size: the connection is closed.
				closed, deadline := 0, time.Now().Add(2*time.Second)
				for _, nc := range open {
					_ = nc.SetReadDeadline(deadline)
					if _, err := nc.Read(make([]byte, 1)); errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
						closed++
					}
				}
				if closed != conns {
					t.Fatalf("%d of %d connections closed after a 5 MiB frame before CONNECT, want all", closed, conns)
				}
			}
		})
	}
}

// floodPings writes PING frames, 64 KiB a write, without reading what
// comes back, until a write has waited 300 ms (the broker stopped reading),
// the connection is closed, or max bytes are written; it returns the bytes
// written, whether the broker stopped reading and the error that ended it.
func floodPings(t *testing.T, nc net.Conn, max int) (int, bool, error) {
	t.Helper()
	ping, err := wire.AppendCommand(nil, &proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat(ping, (64<<10)/len(ping))
	sent := 0
	for sent < max {
		_ = nc.SetWriteDeadline(time.Now().Add(300 * time.Millisecond))
		n, err := nc.Write(chunk)
		sent += n
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			return sent, true, nil
		}
		if err != nil {
			return sent, false, err
		}
	}
	return sent, false, nil
}

// theConn returns the broker's one connection.
func theConn(t *testing.T, b *Broker) *protocol.Conn {
	t.Helper()
	b.srv.Mu.Lock()
	defer b.srv.Mu.Unlock()
	for c := range b.srv.Conns {
		return c
	}
	t.Fatal("no connection")
	return nil
}

// V4: a connected client writes PINGs and never reads the PONGs. The
// broker stops reading it once WriteBufferHighWaterMark bytes wait for it
// (with PauseReceivingIfUnwritable), or MaxQueuedAnswers (without), so
// what it holds for the client stays within twice that (it held every
// PONG: 3.46 GB after 228 MiB of PINGs); the keep-alive check then closes
// the connection. In a synctest bubble: a write the broker does not read
// blocks durably, so its deadline passes on the fake clock.
func TestHostilePingsNeverRead(t *testing.T) {
	const high, keepAlive = 64 << 10, 10 * time.Second
	t.Run("PauseReceivingIfUnwritable", func(t *testing.T) {
		pingsNeverRead(t, high, keepAlive, Options{PauseReceivingIfUnwritable: true, WriteBufferHighWaterMark: int(high)})
	})
	t.Run("MaxQueuedAnswers", func(t *testing.T) {
		pingsNeverRead(t, high, keepAlive, Options{MaxQueuedAnswers: int(high)})
	})
}

func pingsNeverRead(t *testing.T, high int64, keepAlive time.Duration, o Options) {
	synctest.Test(t, func(t *testing.T) {
		o.NoListener, o.KeepAliveInterval = true, keepAlive
		b, err := Start(o)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		nc, err := b.Dial(context.Background(), "", "")
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		if _, err := nc.Write(connectFrame(t)); err != nil {
			t.Fatal(err)
		}
		if cmd, err := pipeFrame(nc); err != nil || cmd.GetType() != proto.BaseCommand_CONNECTED {
			t.Fatal(cmd, err)
		}
		before := heapObjects()
		sent, stalled, err := floodPings(t, nc, 16<<20)
		if err != nil {
			t.Fatalf("flood: %v after %d bytes", err, sent)
		}
		stall := time.Now()
		queued := theConn(t, b).Outq.Queued()
		grew := heapObjects() - before
		t.Logf("PINGs written before the broker stopped reading: %d KiB; queued for the client: %d KiB; heap growth %d KiB",
			sent>>10, queued>>10, grew>>10)
		if !stalled {
			t.Fatalf("the broker read %d MiB of PINGs from a client that reads nothing, want it to stop reading", sent>>20)
		}
		if int64(queued) > 2*high {
			t.Fatalf("%d bytes queued for a client that reads nothing, want <= %d (2x the bound)", queued, 2*high)
		}
		if grew > 2*high {
			t.Fatalf("heap grew by %d KiB, want <= %d KiB (2x the bound)", grew>>10, 2*high>>10)
		}

		// On the keep-alive clock, the paused connection is closed.
		for {
			_ = nc.SetWriteDeadline(time.Now().Add(time.Second))
			_, err = nc.Write([]byte{0})
			if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
				break // closed
			}
			if time.Since(stall) > 10*keepAlive {
				t.Fatal("a paused connection still open after 10 keep-alive intervals")
			}
		}
		took := time.Since(stall)
		t.Logf("paused connection closed %v after it stalled (%v)", took, err)
		if took > 3*keepAlive {
			t.Fatalf("paused connection closed %v after it stalled, want within 3 keep-alive intervals (%v)", took, 3*keepAlive)
		}
	})
}

// failingListener fails Accept with EMFILE while fail > 0.
type failingListener struct {
	net.Listener
	fail  atomic.Int32
	calls atomic.Int32
}

func (l *failingListener) Accept() (net.Conn, error) {
	l.calls.Add(1)
	if l.fail.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// countingHandler counts the log records at Warn and above.
type countingHandler struct{ warns *atomic.Int32 }

func (h countingHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (h countingHandler) Handle(context.Context, slog.Record) error {
	h.warns.Add(1)
	return nil
}
func (h countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h countingHandler) WithGroup(string) slog.Handler      { return h }

// V5: one Accept error (EMFILE) stopped the binary port's accept loop for
// good. Now errors are retried with backoff and logged: after 5 failures
// a client still connects within 1 s. The admin server closes a request
// that never completes its headers, and the connection limits hold.
func TestHostileListeners(t *testing.T) {
	t.Run("accept errors", func(t *testing.T) {
		var warns atomic.Int32
		b := RunT(t, Options{Logger: slog.New(countingHandler{&warns})})
		inner, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln := &failingListener{Listener: inner}
		ln.fail.Store(5)
		b.serveWG.Add(1)
		go b.acceptLoop(ln)
		t.Cleanup(func() { _ = ln.Close() }) // before b.Close waits for the loop
		start := time.Now()
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c := dialRawOn(t, nc)
		_ = nc.SetReadDeadline(time.Now().Add(time.Second))
		c.connect()
		took := time.Since(start)
		t.Logf("connected after %d failed accepts in %v; %d warnings logged", 5, took.Round(time.Millisecond), warns.Load())
		if took > time.Second {
			t.Fatalf("connected after %v, want within 1 s", took)
		}
		if w := warns.Load(); w < 5 {
			t.Fatalf("%d warnings for 5 accept errors, want each logged", w)
		}
	})

	t.Run("incomplete HTTP request", func(t *testing.T) {
		b := RunT(t, Options{HTTPReadHeaderTimeout: 100 * time.Millisecond})
		if s := b.api.Admin.Srv; s.ReadTimeout <= 0 || s.IdleTimeout <= 0 || s.MaxHeaderBytes != 8<<10 {
			t.Fatalf("admin server limits: read %v idle %v max header %d", s.ReadTimeout, s.IdleTimeout, s.MaxHeaderBytes)
		}
		nc, err := net.Dial("tcp", strings.TrimPrefix(b.WebServiceURL(), "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		if _, err := nc.Write([]byte("GET /admin/v2/tenants HTTP/1.1\r\nHost: x\r\n")); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_ = nc.SetReadDeadline(time.Now().Add(3 * time.Second))
		_, err = io.ReadAll(nc)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatal("an incomplete request still holds its connection after 3 s")
		}
		if took := time.Since(start); took > time.Second {
			t.Fatalf("incomplete request closed after %v, want within 1 s (ReadHeaderTimeout 100 ms)", took)
		}
	})

	t.Run("connection limits", func(t *testing.T) {
		for _, o := range []Options{{MaxConnections: 2}, {MaxConnectionsPerIP: 2}} {
			b := RunT(t, o)
			dialRaw(t, b).connect()
			dialRaw(t, b).connect()
			refused := 0
			for range 3 {
				c := dialRaw(t, b)
				f, err := c.next()
				if err == nil && f.Cmd.GetError().GetError() == proto.ServerError_NotAllowedError &&
					strings.HasPrefix(f.Cmd.GetError().GetMessage(), "Reached the maximum number of connections") {
					refused++
					c.expectClosed()
				}
			}
			if refused != 3 {
				t.Fatalf("MaxConnections %d, MaxConnectionsPerIP %d: %d of 3 connections over the limit refused", o.MaxConnections, o.MaxConnectionsPerIP, refused)
			}
		}
	})

	t.Run("half-open binary connection", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			const keepAlive = 10 * time.Second
			b, err := Start(Options{NoListener: true, KeepAliveInterval: keepAlive})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			nc, err := b.Dial(context.Background(), "", "")
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			start := time.Now()
			pings := 0
			for { // sends nothing, not even CONNECT; reads the PINGs
				_ = nc.SetReadDeadline(time.Now().Add(10 * keepAlive))
				cmd, err := pipeFrame(nc)
				if err != nil {
					break
				}
				if cmd.GetType() == proto.BaseCommand_PING {
					pings++
				}
			}
			if took := time.Since(start); took > 3*keepAlive {
				t.Fatalf("silent connection closed after %v (%d PINGs), want within 3 keep-alive intervals", took, pings)
			}
		})
	})
}

// V6: brokerServicePort= and webServicePort= empty, TLS ports set: no
// plaintext port may listen (both did).
func TestHostileEmptyPortsDisablePlaintext(t *testing.T) {
	pki := newTestPKI(t)
	f := pki.writeFiles()
	// No bindAddress: were the empty ports ignored, the plain ones would
	// take free ports (not 6650 and 8080) and be counted below.
	cfg, err := ParseConfig(strings.NewReader("brokerServicePort=\nwebServicePort=\n" +
		"brokerServicePortTls=0\nwebServicePortTls=0\ntlsCertificateFilePath=" + f.CertFile +
		"\ntlsKeyFilePath=" + f.KeyFile + "\ntlsTrustCertsFilePath=" + f.TrustCertsFile + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := RunT(t, cfg.Options)
	plain := 0
	if b.Addr() != "" {
		plain++
	}
	if b.WebServiceURL() != "" {
		plain++
	}
	if plain != 0 {
		t.Fatalf("%d plaintext ports listen (binary %q, web %q), want 0", plain, b.Addr(), b.WebServiceURL())
	}
	if !strings.HasPrefix(b.URL(), "pulsar+ssl://") || b.WebServiceTLSURL() == "" {
		t.Fatalf("URL %q, web TLS %q: want the TLS ports", b.URL(), b.WebServiceTLSURL())
	}
	dialRawTLS(t, b, pki.clientConfig()) // the TLS port serves
}
