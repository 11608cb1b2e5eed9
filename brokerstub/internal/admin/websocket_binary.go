package admin

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/auth"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// wsBinary is a WebSocket session's own binary-protocol connection to the
// broker, in memory, as Pulsar's WebSocket service uses a Pulsar client:
// its producer or consumer goes through CONNECT, PRODUCER/SUBSCRIBE, SEND,
// FLOW and ACK like any client's, with the role the session authenticated
// as over HTTP (conn.preset).
type wsBinary struct {
	nc      net.Conn
	wmu     sync.Mutex
	queue   [][]byte // frames for writeLoop
	closing bool     // close was called: writeLoop closes nc once queue is written
	wake    chan struct{}

	mu      sync.Mutex
	nextReq uint64
	waiters map[uint64]chan *proto.BaseCommand
	err     error // why the connection ended

	// onFrame gets every frame that answers no request (SEND_RECEIPT,
	// SEND_ERROR, MESSAGE, CLOSE_*, REACHED_END_OF_TOPIC, ...), on the
	// reader goroutine; the frame's bytes are valid during the call only.
	onFrame func(*wire.Frame)
	// onClose is called once when the connection ends.
	onClose func(error)
	done    chan struct{}
}

// wsProtocolVersion is the protocol version a session's connection
// declares in CONNECT, as a client does: the newest internal/proto knows,
// as the SDK's own client (internal/conn). The broker speaks the lower of
// it and its own maxProtocolVersion (handle.go).
const wsProtocolVersion = int32(proto.ProtocolVersion_v20)

// errWSBrokerGone is the error of a session whose binary connection ended.
var errWSBrokerGone = errors.New("brokerstub: the WebSocket session's broker connection closed")

// dialWS opens the binary connection of a session of role and completes
// CONNECT. onFrame and onClose are set before any frame is read.
func (b *Web) dialWS(role string, onFrame func(*wire.Frame), onClose func(error)) (*wsBinary, error) {
	client, server := net.Pipe()
	if b.Hooks.IsClosed() {
		_ = client.Close()
		_ = server.Close()
		return nil, engine.ErrClosed
	}
	b.Hooks.ServeAs(server, "", &auth.Identity{Role: role}) // the internal listener
	w := &wsBinary{nc: client, waiters: map[uint64]chan *proto.BaseCommand{}, onFrame: onFrame, onClose: onClose,
		done: make(chan struct{}), wake: make(chan struct{}, 1)}
	go w.readLoop(b.Cfg.MaxMessageSize + wire.FramePadding)
	go w.writeLoop()
	v := "pulsargo-brokerstub-websocket"
	pv := wsProtocolVersion
	r, err := w.call(func(uint64) *proto.BaseCommand {
		return &proto.BaseCommand{Type: proto.BaseCommand_CONNECT.Enum(), Connect: &proto.CommandConnect{ClientVersion: &v, ProtocolVersion: &pv}}
	}, true)
	if err != nil {
		w.close()
		return nil, err
	}
	if r.GetType() != proto.BaseCommand_CONNECTED {
		w.close()
		return nil, fmt.Errorf("brokerstub: websocket session: CONNECT answered %s", r.GetType())
	}
	return w, nil
}

// call sends the command build makes with a new request id and waits for
// its answer (or, with connect, for CONNECTED/ERROR). An ERROR answer is
// returned as a *wsBrokerError.
func (w *wsBinary) call(build func(rid uint64) *proto.BaseCommand, connect bool) (*proto.BaseCommand, error) {
	ch := make(chan *proto.BaseCommand, 1)
	w.mu.Lock()
	if w.err != nil {
		err := w.err
		w.mu.Unlock()
		return nil, err
	}
	rid := w.nextReq
	w.nextReq++
	key := rid
	if connect {
		key = connectKey
	}
	w.waiters[key] = ch
	w.mu.Unlock()
	if err := w.write(build(rid), nil, nil); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		if r.GetType() == proto.BaseCommand_ERROR {
			return nil, &wsBrokerError{code: r.GetError().GetError(), msg: r.GetError().GetMessage()}
		}
		return r, nil
	case <-w.done:
		return nil, w.closedErr()
	}
}

// connectKey is the waiter key of CONNECT, which has no request id.
const connectKey = ^uint64(0) - 1

// wsBrokerError is a broker's ERROR answer to a session's request.
type wsBrokerError struct {
	code proto.ServerError
	msg  string
}

func (e *wsBrokerError) Error() string { return fmt.Sprintf("%s: %s", e.code, e.msg) }

func (w *wsBinary) closedErr() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	return errWSBrokerGone
}

// write queues a command, with a message when meta is set, for the
// writer goroutine: the reader goroutine also writes (PONG, FLOW, ACK),
// and must never wait for the broker, whose own writer may be waiting for
// it. The queue holds what the session's limits allow in flight: SENDs up
// to the producer's pending limit, FLOWs and ACKs up to the consumer's.
func (w *wsBinary) write(cmd *proto.BaseCommand, meta *proto.MessageMetadata, payload []byte) error {
	var b []byte
	var err error
	if meta != nil {
		b, err = wire.AppendPayloadFrame(nil, cmd, meta, payload)
	} else {
		b, err = wire.AppendCommand(nil, cmd)
	}
	if err != nil {
		return err
	}
	w.wmu.Lock()
	defer w.wmu.Unlock()
	select {
	case <-w.done:
		return w.closedErr()
	default:
	}
	if w.closing {
		return errWSBrokerGone
	}
	w.queue = append(w.queue, b)
	if len(w.queue) == 1 {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// writeLoop writes the queued frames until the connection ends.
func (w *wsBinary) writeLoop() {
	for {
		select {
		case <-w.done:
			return
		case <-w.wake:
		}
		for {
			w.wmu.Lock()
			q, closing := w.queue, w.closing
			w.queue = nil
			w.wmu.Unlock()
			if len(q) == 0 {
				if closing {
					_ = w.nc.Close()
					return
				}
				break
			}
			for _, b := range q {
				if _, err := w.nc.Write(b); err != nil {
					_ = w.nc.Close()
					return
				}
			}
		}
	}
}

// readLoop reads the broker's frames until the connection ends.
func (w *wsBinary) readLoop(maxFrame int) {
	r := wire.NewReader(w.nc, maxFrame)
	var err error
	for {
		var f wire.Frame
		f, err = r.ReadFrame()
		if err != nil {
			var fe *wire.FrameError
			if errors.As(err, &fe) && !errors.Is(err, wire.ErrFrameTooLarge) && !errors.Is(err, wire.ErrTruncated) {
				continue // one bad frame, consumed whole
			}
			break
		}
		w.dispatch(&f)
	}
	w.mu.Lock()
	if w.err == nil {
		w.err = fmt.Errorf("%w: %w", errWSBrokerGone, err)
	}
	err = w.err
	w.mu.Unlock()
	close(w.done)
	_ = w.nc.Close()
	if w.onClose != nil {
		w.onClose(err)
	}
}

func (w *wsBinary) dispatch(f *wire.Frame) {
	cmd := f.Cmd
	switch cmd.GetType() {
	case proto.BaseCommand_PING:
		_ = w.write(&proto.BaseCommand{Type: proto.BaseCommand_PONG.Enum(), Pong: &proto.CommandPong{}}, nil, nil)
		return
	case proto.BaseCommand_PONG:
		return
	case proto.BaseCommand_CONNECTED:
		w.answer(connectKey, cmd)
		return
	case proto.BaseCommand_ERROR:
		if w.answer(cmd.GetError().GetRequestId(), cmd) || w.answer(connectKey, cmd) {
			return
		}
	case proto.BaseCommand_PRODUCER_SUCCESS:
		if !cmd.GetProducerSuccess().GetProducerReady() && cmd.GetProducerSuccess().ProducerReady != nil {
			return // queued: the ready answer follows
		}
		w.answer(cmd.GetProducerSuccess().GetRequestId(), cmd)
		return
	case proto.BaseCommand_SUCCESS:
		w.answer(cmd.GetSuccess().GetRequestId(), cmd)
		return
	case proto.BaseCommand_GET_LAST_MESSAGE_ID_RESPONSE:
		w.answer(cmd.GetGetLastMessageIdResponse().GetRequestId(), cmd)
		return
	}
	if w.onFrame != nil {
		w.onFrame(f)
	}
}

// answer hands cmd to the waiter of request rid, if any.
func (w *wsBinary) answer(rid uint64, cmd *proto.BaseCommand) bool {
	w.mu.Lock()
	ch, ok := w.waiters[rid]
	delete(w.waiters, rid)
	w.mu.Unlock()
	if ok {
		ch <- cmd
	}
	return ok
}

// close ends the connection once what is queued is written (a consumer's
// last acks, as a Java consumer flushes its acks when it closes); the
// broker then detaches the producer or consumer. A broker that does not
// read for closeFlushTimeout does not hold it.
func (w *wsBinary) close() {
	w.wmu.Lock()
	already := w.closing
	w.closing = true
	w.wmu.Unlock()
	if already {
		return
	}
	_ = w.nc.SetWriteDeadline(time.Now().Add(closeFlushTimeout))
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// closeFlushTimeout bounds how long a closing session's last frames may
// take to be written.
const closeFlushTimeout = time.Second
