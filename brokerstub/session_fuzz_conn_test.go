package brokerstub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// fuzzSession is one connection's session and what it waits for.
type fuzzSession struct {
	t      *testing.T
	nc     net.Conn
	ns     string // prefix of the session's topic names
	in     []byte
	rid    uint64
	txns   [][2]*uint64 // transactions the coordinator opened: least, most bits
	mu     sync.Mutex
	open   map[uint64]proto.BaseCommand_Type // request id → the request's command
	closed chan struct{}                     // the read loop ended: the broker closed the connection
	// answered is signalled (without blocking) each time a request is
	// answered, so that await and finish wake up at once rather than
	// polling.
	answered chan struct{}
	got      map[proto.BaseCommand_Type]int // what the broker sent, for the log
	// raw is set once the session wrote raw bytes: the broker may then
	// read what follows as the rest of a frame those bytes began (as a
	// Pulsar broker would, up to its frame limit), so later requests are
	// sent but not expected to be answered.
	raw bool
}

func newFuzzSession(t *testing.T, b *Broker, ns string) *fuzzSession {
	nc, err := b.Dial(context.Background(), "tcp", "")
	if err != nil {
		t.Fatal(err)
	}
	s := &fuzzSession{t: t, nc: nc, ns: ns, open: map[uint64]proto.BaseCommand_Type{}, got: map[proto.BaseCommand_Type]int{},
		closed: make(chan struct{}), answered: make(chan struct{}, 1)}
	s.write(&proto.BaseCommand{Type: proto.BaseCommand_CONNECT.Enum(), Connect: &proto.CommandConnect{
		ClientVersion: gproto.String("fuzz"), ProtocolVersion: gproto.Int32(21)}})
	go s.readLoop()
	return s
}

// readLoop reads the broker's frames, ticking off answered requests and
// answering pings, until the connection ends.
func (s *fuzzSession) readLoop() {
	defer close(s.closed)
	r := wire.NewReader(s.nc, 0)
	for {
		f, err := r.ReadFrame()
		if err != nil {
			var fe *wire.FrameError
			if errors.As(err, &fe) && !errors.Is(err, io.ErrUnexpectedEOF) && fe.Cmd != nil {
				continue // a frame the broker sent whole but with a bad payload section
			}
			return
		}
		s.mu.Lock()
		s.got[f.Cmd.GetType()]++
		s.mu.Unlock()
		switch f.Cmd.GetType() {
		case proto.BaseCommand_PING:
			s.write(&proto.BaseCommand{Type: proto.BaseCommand_PONG.Enum(), Pong: &proto.CommandPong{}})
		case proto.BaseCommand_NEW_TXN_RESPONSE:
			if r := f.Cmd.GetNewTxnResponse(); r.GetError() == 0 && r.Error == nil {
				s.mu.Lock()
				s.txns = append(s.txns, [2]*uint64{r.TxnidLeastBits, r.TxnidMostBits})
				s.mu.Unlock()
			}
		}
		if id, ok := wire.RequestID(f.Cmd); ok {
			s.mu.Lock()
			delete(s.open, id)
			s.mu.Unlock()
			select {
			case s.answered <- struct{}{}:
			default:
			}
		}
	}
}

// write sends one frame; a write to a connection the broker closed is not
// an error of the broker's.
func (s *fuzzSession) write(cmd *proto.BaseCommand) {
	b, err := wire.AppendCommand(nil, cmd)
	if err == nil {
		_, _ = s.nc.Write(b)
	}
}

// request sends cmd, whose request id field set() sets, and expects an
// answer.
func (s *fuzzSession) request(cmd *proto.BaseCommand, set func(rid *uint64)) {
	s.rid++
	rid := s.rid
	set(&rid)
	if !s.raw {
		s.mu.Lock()
		s.open[rid] = cmd.GetType()
		s.mu.Unlock()
	}
	s.write(cmd)
}

// await waits until request rid is answered or the connection ends.
func (s *fuzzSession) await(rid uint64) {
	timeout := time.NewTimer(answerWait)
	defer timeout.Stop()
	for {
		s.mu.Lock()
		_, open := s.open[rid]
		s.mu.Unlock()
		if !open {
			return
		}
		select {
		case <-s.closed:
			return
		case <-s.answered:
		case <-timeout.C:
			s.t.Fatalf("request %d unanswered after %v", rid, answerWait)
		}
	}
}

// finish waits until every request is answered (or the broker closed the
// connection), then closes the connection.
func (s *fuzzSession) finish() {
	defer func() {
		s.nc.Close()
		<-s.closed
		s.t.Logf("the broker sent %v", s.got)
	}()
	timeout := time.NewTimer(answerWait)
	defer timeout.Stop()
	for {
		s.mu.Lock()
		left := len(s.open)
		var some string
		for id, typ := range s.open {
			some = fmt.Sprintf("request %d (%s)", id, typ)
			break
		}
		s.mu.Unlock()
		if left == 0 {
			return
		}
		select {
		case <-s.closed:
			return
		case <-s.answered:
		case <-timeout.C:
			s.t.Fatalf("%d requests unanswered after %v, among them %s", left, answerWait, some)
		}
	}
}
