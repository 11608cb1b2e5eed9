package integration

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"

	"github.com/pulsargo/sdk/brokerstub"
	pb "github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// wireTap is a TCP proxy in front of a stub that records what clients
// write, so that a test can compare the commands two clients send. The
// stub listens on 127.0.0.2 at the proxy's port and advertises 127.0.0.1,
// so that lookups send clients back through the proxy.
type wireTap struct {
	ln    net.Listener
	b     *brokerstub.Broker
	mu    sync.Mutex
	conns []*bytes.Buffer
	wg    sync.WaitGroup
}

func startTappedStub(t *testing.T) *wireTap {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	b := startStub(t, brokerstub.Options{Addr: "127.0.0.2:" + strconv.Itoa(port), AdvertisedAddress: "127.0.0.1"})
	tap := &wireTap{ln: ln, b: b}
	tap.wg.Add(1)
	go tap.accept("127.0.0.2:" + strconv.Itoa(port))
	t.Cleanup(func() {
		_ = ln.Close()
		tap.wg.Wait()
	})
	return tap
}

func (tap *wireTap) URL() string { return "pulsar://" + tap.ln.Addr().String() }

func (tap *wireTap) accept(upstream string) {
	defer tap.wg.Done()
	for {
		c, err := tap.ln.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", upstream)
		if err != nil {
			_ = c.Close()
			continue
		}
		buf := &bytes.Buffer{}
		tap.mu.Lock()
		tap.conns = append(tap.conns, buf)
		tap.mu.Unlock()
		tap.wg.Add(2)
		go func() { // client -> broker, recorded
			defer tap.wg.Done()
			_, _ = io.Copy(io.MultiWriter(u, &lockedWriter{mu: &tap.mu, w: buf}), c)
			_ = u.Close()
		}()
		go func() { // broker -> client
			defer tap.wg.Done()
			_, _ = io.Copy(c, u)
			_ = c.Close()
		}()
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// commands decodes the recorded streams and returns the commands of type
// typ, in each connection's order.
func (tap *wireTap) commands(t *testing.T, typ pb.BaseCommand_Type) []*pb.BaseCommand {
	t.Helper()
	tap.mu.Lock()
	var streams [][]byte
	for _, b := range tap.conns {
		streams = append(streams, bytes.Clone(b.Bytes()))
	}
	tap.mu.Unlock()
	var out []*pb.BaseCommand
	for _, s := range streams {
		rd := wire.NewReader(bytes.NewReader(s), 64<<20)
		for {
			f, err := rd.ReadFrame()
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			if err != nil {
				t.Fatalf("decode recorded frame: %v", err)
			}
			if f.Cmd.GetType() == typ {
				out = append(out, f.Cmd)
			}
		}
	}
	return out
}
