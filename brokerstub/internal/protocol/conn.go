package protocol

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/auth"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/frameq"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// Conn is one client connection: a reader goroutine that decodes and handles
// commands in order, and a writer goroutine that drains the out queue.
type Conn struct {
	b   *Server
	id  uint64
	nc  net.Conn
	log *slog.Logger
	Out *frameq.Queue[outFrame]
	// Outq counts the bytes in out and being written, but deliveries;
	// the read loop pauses past its high mark (outq.go).
	Outq outBudget
	// lingering is set once a last frame (writeLast) is queued: the
	// connection closes when the writer has written it.
	lingering atomic.Bool

	closeOnce sync.Once
	done      chan struct{}
	lastRead  atomic.Int64 // unix nanos of the last frame received

	// Set by CONNECT, read by the reader goroutine only.
	Connected       bool
	protocolVersion int32
	clientVersion   string // CONNECT's client_version, for admin stats

	auth connAuth // the authenticated role (auth_conn.go)
	// preset is the role of a WebSocket session's connection, which
	// CONNECT takes instead of credentials (websocket_binary.go).
	preset *auth.Identity

	// listener is the listener name of the port the connection came in on
	// (Options.BindAddresses; listeners.go), "" for the main ports.
	listener string

	Sends SendBudget // bytes of SEND frames on their way to their topics
	Gate  connGate   // non-persistent sends in flight, partial producers (np_inflight.go)
	// pubHold pauses reading for the publish rates (ratelimit_publish.go).
	pubHold engine.PubHold

	mu        sync.Mutex
	producers map[uint64]*engine.Producer
	consumers map[uint64]*engine.Consumer
}

func NewConn(b *Server, nc net.Conn) *Conn {
	id := b.connSeq.Add(1)
	return &Conn{
		b: b, id: id, nc: nc, Out: frameq.New[outFrame](), done: make(chan struct{}),
		log:       b.Log.With("conn", id, "remote", nc.RemoteAddr().String()),
		Outq:      newOutBudget(b.Cfg),
		producers: map[uint64]*engine.Producer{},
		consumers: map[uint64]*engine.Consumer{},
	}
}

// lingerTimeout is how long a connection refused with a last frame
// (writeLast) waits for the client to take it before it is closed anyway.
const lingerTimeout = time.Second

// run serves the connection until it closes, then detaches its producers
// and consumers from their topics.
func (c *Conn) run() {
	c.log.Debug("connection opened")
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		c.writeLoop()
	}()
	go c.keepAlive()
	c.readLoop()
	if c.lingering.Load() {
		t := time.NewTimer(lingerTimeout)
		select {
		case <-c.done:
		case <-t.C:
		}
		t.Stop()
	}
	c.Close()
	<-writerDone
	c.DetachAll()
	c.log.Debug("connection closed")
}

// Close closes the connection; the loops notice and end. Idempotent.
func (c *Conn) Close() {
	c.closeOnce.Do(func() {
		c.stopAuth()
		close(c.done)
		c.Out.Close()
		_ = c.nc.Close()
	})
}

// NewFramePool returns the pool of the buffers connections read frames
// into. Every frame is released once handled (a SEND's once its topic has
// copied the entry into the ledger), so buffers of every size are
// recycled: the bytes a client sends land in memory written before, not in
// a fresh allocation per frame.
func NewFramePool() *wire.BufferPool { return wire.NewBufferPoolFrom(0) }

// readLoop reads and serves frames until the connection closes. Until
// CONNECT has succeeded, a frame may be at most
// Options.MaxFrameSizeBeforeConnect; then MaxMessageSize + FramePadding. It
// reads nothing while the connection's SENDs wait for their topics
// (sendBudget) or its outbound queue is past the high-water mark (outq).
func (c *Conn) readLoop() {
	r := wire.NewReader(c.nc, c.b.Cfg.MaxFrameSizeBeforeConnect)
	r.SetBufferPool(c.b.Frames())
	for {
		if !c.Sends.Wait(c.done) || !c.Outq.Wait(c.done) || !c.pubHold.Wait(c.done) {
			return
		}
		f, err := r.ReadFrame()
		c.lastRead.Store(time.Now().UnixNano())
		if err != nil {
			if !c.Connected && errors.Is(err, wire.ErrFrameTooLarge) {
				err = fmt.Errorf("brokerstub: a frame before CONNECT may be at most %d bytes (Options.MaxFrameSizeBeforeConnect): %w",
					c.b.Cfg.MaxFrameSizeBeforeConnect, err)
			}
			if !c.handleReadError(err) {
				return
			}
			continue
		}
		wasConnected := c.Connected
		ok := c.serveFrame(&f)
		f.Release() // unless a handler moved it (handleSend)
		if !ok || c.lingering.Load() {
			return
		}
		if !wasConnected && c.Connected {
			r.SetMaxFrameSize(c.b.Cfg.MaxMessageSize + wire.FramePadding)
		}
	}
}

// serveFrame runs the interceptor and the handler of one frame; it reports
// false when the connection must close. A handler that uses the frame's
// bytes after it returns moves the frame (wire.Frame.Move).
func (c *Conn) serveFrame(f *wire.Frame) bool {
	act := c.b.Hooks.Intercept(c.id, false, f.Cmd)
	if act.CloseConn {
		return false
	}
	if !c.sleep(act.Delay) {
		return false
	}
	if act.Drop {
		return true
	}
	if act.Fail {
		c.replyError(f.Cmd, act.FailCode, "failed by interceptor")
		return true
	}
	if c.log.Enabled(context.Background(), slog.LevelDebug) {
		c.log.Debug("command", "type", f.Cmd.GetType(), "cmd", wire.Payload(f.Cmd))
	}
	return c.Handle(f)
}

// sleep waits d for an interceptor's delay; it reports false when the
// connection closed meanwhile.
func (c *Conn) sleep(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.done:
		return false
	}
}

// handleReadError answers a bad frame the way Pulsar does and reports
// whether the connection can carry on.
func (c *Conn) handleReadError(err error) bool {
	var fe *wire.FrameError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
		return false
	case errors.As(err, &fe) && errors.Is(err, wire.ErrUnknownCommand):
		c.log.Warn("unsupported command", "type", fe.Type, "err", err)
		if fe.HasRequestID {
			c.sendError(fe.RequestID, proto.ServerError_NotAllowedError, "brokerstub does not support "+fe.Type.String())
		}
		return true
	case errors.As(err, &fe) && errors.Is(err, wire.ErrChecksum) && fe.Cmd.GetSend() != nil:
		s := fe.Cmd.GetSend()
		c.log.Warn("checksum mismatch on send", "producer", s.GetProducerId(), "seq", s.GetSequenceId())
		c.write(&proto.BaseCommand{Type: proto.BaseCommand_SEND_ERROR.Enum(), SendError: &proto.CommandSendError{
			ProducerId: s.ProducerId, SequenceId: s.SequenceId,
			Error: proto.ServerError_ChecksumError.Enum(), Message: Strp("checksum mismatch")}})
		return true
	}
	select {
	case <-c.done:
	default:
		c.log.Warn("closing connection after bad frame", "err", err)
	}
	return false
}

func (c *Conn) writeLoop() {
	var bufs net.Buffers
	for {
		select {
		case <-c.done:
			return
		case <-c.Out.Ready():
		}
		taken, last := 0, false
		for _, f := range c.Out.Take() {
			if last {
				break
			}
			taken += f.size()
			last = f.last
			var act Verdict
			if c.b.Hooks.Intercepting() {
				act = c.b.Hooks.Intercept(c.id, true, f.Command())
			}
			if act.CloseConn {
				c.Close()
				return
			}
			if !c.sleep(act.Delay) {
				return
			}
			if act.Drop {
				continue
			}
			bufs = append(bufs, f.header)
			if len(f.payload) > 0 {
				bufs = append(bufs, f.payload)
			}
		}
		if len(bufs) > 0 {
			if _, err := bufs.WriteTo(c.nc); err != nil {
				c.Close()
				return
			}
			bufs = bufs[:0]
		}
		c.Outq.sub(taken)
		if last {
			c.Close()
			return
		}
	}
}

// keepAlive pings the client every KeepAliveInterval and closes the
// connection when it has been silent for two intervals.
func (c *Conn) keepAlive() {
	interval := c.b.Cfg.KeepAliveInterval
	c.lastRead.Store(time.Now().UnixNano())
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			// Not while reads pause for the publish rates: Pulsar's
			// keep-alive spares a connection with autoread off.
			if time.Since(time.Unix(0, c.lastRead.Load())) > 2*interval && !c.pubHold.Holding() {
				c.log.Info("client silent; closing connection")
				c.Close()
				return
			}
			c.write(&proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
		}
	}
}

// write queues a simple command for the client.
func (c *Conn) write(cmd *proto.BaseCommand) {
	frame, err := wire.AppendCommand(nil, cmd)
	if err != nil {
		c.log.Error("encode command", "type", cmd.GetType(), "err", err)
		return
	}
	c.push(outFrame{header: frame})
}

// writeLast queues cmd as the connection's last frame: the read loop reads
// nothing more, and the writer closes the connection once it has written
// it, as Pulsar's writeAndFlush with a close listener.
func (c *Conn) writeLast(cmd *proto.BaseCommand) {
	frame, err := wire.AppendCommand(nil, cmd)
	if err != nil {
		c.log.Error("encode command", "type", cmd.GetType(), "err", err)
		c.Close()
		return
	}
	c.lingering.Store(true)
	c.push(outFrame{header: frame, last: true})
}

// push queues f for the writer, counting its bytes in outq.
func (c *Conn) push(f outFrame) {
	n := f.size()
	c.Outq.add(n)
	if !c.Out.Push(f) {
		c.Outq.sub(n)
	}
}

// Deliver queues a payload frame carrying e's metadata and payload as
// stored, with e's checksum when it has one (computed otherwise). cmd is
// encoded at once and not kept (the caller may reuse it). (peer)
func (c *Conn) Deliver(cmd *proto.BaseCommand, e ledger.Entry) {
	var hdr []byte
	var err error
	if e.HasSum {
		hdr, err = wire.AppendPayloadHeaderRawSum(nil, cmd, e.Meta, e.Payload, e.Sum)
	} else {
		hdr, err = wire.AppendPayloadHeaderRaw(nil, cmd, e.Meta, e.Payload)
	}
	if err != nil {
		c.log.Error("encode message", "err", err)
		return
	}
	c.push(outFrame{header: hdr, payload: e.Payload, delivery: true})
}

// Send queues cmd for the client (peer).
func (c *Conn) Send(cmd *proto.BaseCommand) { c.write(cmd) }

// DropProducer forgets p if it is still the producer registered under
// its id (peer).
func (c *Conn) DropProducer(p *engine.Producer) {
	c.mu.Lock()
	if c.producers[p.ID()] == p {
		delete(c.producers, p.ID())
	}
	c.mu.Unlock()
}

// DropConsumer forgets the consumer of that id (peer).
func (c *Conn) DropConsumer(id uint64) {
	c.mu.Lock()
	delete(c.consumers, id)
	c.mu.Unlock()
}

// ConnID is the connection's number (peer).
func (c *Conn) ConnID() uint64 { return c.id }

// RemoteAddr is the client's address (peer).
func (c *Conn) RemoteAddr() net.Addr { return c.nc.RemoteAddr() }

// Version is CONNECT's client_version (peer).
func (c *Conn) Version() string { return c.clientVersion }

// PartialProducer is CONNECT's supports_partial_producer flag (peer).
func (c *Conn) PartialProducer() bool { return c.Gate.partialProducer }

// sendError answers a request with CommandError.
func (c *Conn) sendError(requestID uint64, code proto.ServerError, msg string) {
	c.write(engine.ErrorCmd(requestID, code, msg))
}

// sendSuccess answers a request with CommandSuccess.
func (c *Conn) sendSuccess(requestID uint64) { c.write(engine.SuccessCmd(requestID)) }

// replyError answers cmd with an error of the right shape: CommandSendError
// for a send, CommandError for a request; commands that take no answer are
// logged only.
func (c *Conn) replyError(cmd *proto.BaseCommand, code proto.ServerError, msg string) {
	if s := cmd.GetSend(); s != nil {
		c.write(&proto.BaseCommand{Type: proto.BaseCommand_SEND_ERROR.Enum(), SendError: &proto.CommandSendError{
			ProducerId: s.ProducerId, SequenceId: s.SequenceId, Error: code.Enum(), Message: &msg}})
		return
	}
	if id, ok := RequestID(cmd); ok {
		c.sendError(id, code, msg)
		return
	}
	c.log.Info("command failed", "type", cmd.GetType(), "error", code, "msg", msg)
}

// DetachAll removes the connection's producers and consumers from their
// topics after it closed.
func (c *Conn) DetachAll() {
	c.mu.Lock()
	prods := c.producers
	cons := c.consumers
	c.producers = map[uint64]*engine.Producer{}
	c.consumers = map[uint64]*engine.Consumer{}
	c.mu.Unlock()
	c.b.Watch.removeConn(c)
	for _, p := range prods {
		p.Detach()
	}
	for _, cs := range cons {
		cs.Detach()
	}
}

func RequestID(cmd *proto.BaseCommand) (uint64, bool) { return wire.RequestID(cmd) }

func Strp(s string) *string { return &s }

// connGate is what a connection keeps for the gates: the count of its
// non-persistent SENDs in flight (the read loop adds, topic goroutines
// take away) and whether its client announced supports_partial_producer
// (set by CONNECT, before any producer; admin_stats_publishers.go).
type connGate struct {
	NpInFlight      atomic.Int64
	partialProducer bool
}
