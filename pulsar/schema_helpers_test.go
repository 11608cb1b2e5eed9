package pulsar

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// wireRecorder keeps every byte a client writes on its connections, to
// decode the commands it sent.
type wireRecorder struct {
	mu    sync.Mutex
	conns []*bytes.Buffer
}

// dial wraps a dialer so that what the client writes is recorded.
func (r *wireRecorder) dial(d func(ctx context.Context, network, address string) (net.Conn, error)) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		c, err := d(ctx, network, address)
		if err != nil {
			return nil, err
		}
		buf := &bytes.Buffer{}
		r.mu.Lock()
		r.conns = append(r.conns, buf)
		r.mu.Unlock()
		return &recordedConn{Conn: c, r: r, buf: buf}, nil
	}
}

type recordedConn struct {
	net.Conn
	r   *wireRecorder
	buf *bytes.Buffer
}

func (c *recordedConn) Write(p []byte) (int, error) {
	c.r.mu.Lock()
	c.buf.Write(p)
	c.r.mu.Unlock()
	return c.Conn.Write(p)
}

// commands returns the commands of type typ written so far.
func (r *wireRecorder) commands(t *testing.T, typ proto.BaseCommand_Type) []*proto.BaseCommand {
	t.Helper()
	r.mu.Lock()
	var streams [][]byte
	for _, b := range r.conns {
		streams = append(streams, bytes.Clone(b.Bytes()))
	}
	r.mu.Unlock()
	var out []*proto.BaseCommand
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

// schemaEnv is a stub, a client whose writes are recorded, and counts of
// the schema commands the stub received.
type schemaEnv struct {
	*csEnv
	rec    *wireRecorder
	mu     sync.Mutex
	counts map[brokerstub.Command]int
}

func newSchemaEnv(t *testing.T, opts ...brokerstub.Options) *schemaEnv {
	t.Helper()
	v := newCSEnv(t, opts...)
	e := &schemaEnv{csEnv: v, rec: &wireRecorder{}, counts: map[brokerstub.Command]int{}}
	c, err := NewClient(ClientOptions{URL: v.b.URL(), Dialer: e.rec.dial(v.b.Dial), OperationTimeout: 5 * time.Second, Logger: clientLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	e.c = c
	v.b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
		if ev.Dir == brokerstub.Inbound {
			e.mu.Lock()
			e.counts[ev.Type]++
			e.mu.Unlock()
		}
		return brokerstub.Action{}
	})
	return e
}

func (e *schemaEnv) count(c brokerstub.Command) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.counts[c]
}

// decodeAs receives a message and decodes its value into out.
func decodeAs(t *testing.T, c Consumer, out any) Message {
	t.Helper()
	m := csRecv(t, c)
	if err := m.GetSchemaValue(out); err != nil {
		t.Fatalf("GetSchemaValue of %v: %v", m.ID(), err)
	}
	return m
}
