package txn

import (
	"context"
	"sync"
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/clock"
	"github.com/pulsargo/sdk/internal/proto"
)

// scriptConn is a connection whose answers the test scripts: it records
// every request and answers it with answer (default: success responses
// that echo the request, NEW_TXN numbered 1, 2, ... on its coordinator).
// It is a test double of the connection, not a coordinator: it keeps no
// transaction state.
type scriptConn struct {
	mu     sync.Mutex
	tc     uint64
	rid    uint64
	seq    uint64
	sent   []*proto.BaseCommand
	answer func(*proto.BaseCommand) (*proto.BaseCommand, error)
	done   chan struct{}
}

func newScriptConn(tc uint64) *scriptConn { return &scriptConn{tc: tc, done: make(chan struct{})} }

func (c *scriptConn) NewRequestID() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rid++
	return c.rid
}

func (c *scriptConn) Done() <-chan struct{} { return c.done }

func (c *scriptConn) close() { close(c.done) }

func (c *scriptConn) Request(_ context.Context, rid uint64, cmd *proto.BaseCommand) (*proto.BaseCommand, error) {
	c.mu.Lock()
	c.sent = append(c.sent, cmd)
	answer := c.answer
	c.seq++
	seq := c.seq
	c.mu.Unlock()
	if answer != nil {
		if resp, err := answer(cmd); resp != nil || err != nil {
			return resp, err
		}
	}
	return success(cmd, rid, c.tc, seq), nil
}

// types returns the types of the requests sent, in order.
func (c *scriptConn) types() []proto.BaseCommand_Type {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]proto.BaseCommand_Type, len(c.sent))
	for i, cmd := range c.sent {
		out[i] = cmd.GetType()
	}
	return out
}

// last returns the last request of type t, or nil.
func (c *scriptConn) last(t proto.BaseCommand_Type) *proto.BaseCommand {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.sent) - 1; i >= 0; i-- {
		if c.sent[i].GetType() == t {
			return c.sent[i]
		}
	}
	return nil
}

// success is the success response to cmd.
func success(cmd *proto.BaseCommand, rid, tc, seq uint64) *proto.BaseCommand {
	id := gproto.Uint64(rid)
	switch cmd.GetType() {
	case proto.BaseCommand_TC_CLIENT_CONNECT_REQUEST:
		return &proto.BaseCommand{Type: proto.BaseCommand_TC_CLIENT_CONNECT_RESPONSE.Enum(),
			TcClientConnectResponse: &proto.CommandTcClientConnectResponse{RequestId: id}}
	case proto.BaseCommand_NEW_TXN:
		return &proto.BaseCommand{Type: proto.BaseCommand_NEW_TXN_RESPONSE.Enum(),
			NewTxnResponse: &proto.CommandNewTxnResponse{RequestId: id, TxnidMostBits: gproto.Uint64(tc), TxnidLeastBits: gproto.Uint64(seq)}}
	case proto.BaseCommand_ADD_PARTITION_TO_TXN:
		return &proto.BaseCommand{Type: proto.BaseCommand_ADD_PARTITION_TO_TXN_RESPONSE.Enum(),
			AddPartitionToTxnResponse: &proto.CommandAddPartitionToTxnResponse{RequestId: id}}
	case proto.BaseCommand_ADD_SUBSCRIPTION_TO_TXN:
		return &proto.BaseCommand{Type: proto.BaseCommand_ADD_SUBSCRIPTION_TO_TXN_RESPONSE.Enum(),
			AddSubscriptionToTxnResponse: &proto.CommandAddSubscriptionToTxnResponse{RequestId: id}}
	case proto.BaseCommand_END_TXN:
		return &proto.BaseCommand{Type: proto.BaseCommand_END_TXN_RESPONSE.Enum(),
			EndTxnResponse: &proto.CommandEndTxnResponse{RequestId: id}}
	}
	return &proto.BaseCommand{Type: proto.BaseCommand_ERROR.Enum(),
		Error: &proto.CommandError{RequestId: id, Error: proto.ServerError_UnknownError.Enum(), Message: gproto.String("unexpected")}}
}

// endTxnError is an END_TXN_RESPONSE carrying code.
func endTxnError(cmd *proto.BaseCommand, code proto.ServerError) *proto.BaseCommand {
	return &proto.BaseCommand{Type: proto.BaseCommand_END_TXN_RESPONSE.Enum(),
		EndTxnResponse: &proto.CommandEndTxnResponse{RequestId: cmd.GetEndTxn().RequestId, Error: code.Enum(), Message: gproto.String("scripted")}}
}

// fixture is a Coordinator over n scripted connections and a fake clock.
type fixture struct {
	co    *Coordinator
	conns []*scriptConn
	clock *clock.Fake
	dials []uint64 // coordinators dialed, in order
	mu    sync.Mutex
}

const opTimeout = 5 * time.Second

func newFixture(t *testing.T, n int) *fixture {
	t.Helper()
	f := &fixture{clock: clock.NewFake(time.Unix(1000, 0))}
	for i := range n {
		f.conns = append(f.conns, newScriptConn(uint64(i)))
	}
	co, err := Start(context.Background(), n, Options{
		Connect: func(_ context.Context, tc uint64) (Conn, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.dials = append(f.dials, tc)
			return f.conns[tc], nil
		},
		OperationTimeout: opTimeout,
		Clock:            f.clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	f.co = co
	return f
}

func (f *fixture) newTxn(t *testing.T, timeout time.Duration) *Txn {
	t.Helper()
	tx, err := f.co.NewTxn(context.Background(), timeout)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}
