package conn

import (
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// outFrame is a queued frame: its header (the whole frame for a simple
// command) and the payload written after it without a copy.
type outFrame struct {
	header, payload []byte
}

// writeLoop writes queued frames, coalescing whatever is queued into one
// vectored write.
func (c *Conn) writeLoop() {
	var bufs net.Buffers
	for {
		select {
		case <-c.closed:
			return
		case <-c.out.Ready():
		}
		bufs = bufs[:0]
		for _, f := range c.out.Take() {
			bufs = append(bufs, f.header)
			if len(f.payload) > 0 {
				bufs = append(bufs, f.payload)
			}
		}
		if len(bufs) == 0 {
			continue
		}
		if _, err := bufs.WriteTo(c.nc); err != nil {
			c.closeWith(fmt.Errorf("write: %w", err))
			return
		}
	}
}

// Send queues a simple command; it reports ErrClosed when the connection
// is gone.
func (c *Conn) Send(cmd *proto.BaseCommand) error {
	frame, err := wire.AppendCommand(nil, cmd)
	if err != nil {
		return err
	}
	if !c.out.Push(outFrame{header: frame}) {
		return ErrClosed
	}
	return nil
}

// SendPayload queues a payload frame. The payload is written from the
// caller's slice without a copy; the caller must not modify it until the
// broker has answered (a receipt, an error, or a closed connection).
func (c *Conn) SendPayload(cmd *proto.BaseCommand, meta *proto.MessageMetadata, payload []byte) error {
	hdr, err := wire.AppendPayloadHeader(nil, cmd, meta, payload)
	if err != nil {
		return err
	}
	if len(hdr)+len(payload) > c.maxMessageSize+wire.FramePadding {
		return fmt.Errorf("%w: frame of %d bytes exceeds the broker's limit %d", wire.ErrFrameTooLarge,
			len(hdr)+len(payload), c.maxMessageSize+wire.FramePadding)
	}
	if !c.out.Push(outFrame{header: hdr, payload: payload}) {
		return ErrClosed
	}
	return nil
}

func (c *Conn) readLoop(r *wire.Reader) {
	for {
		f, err := r.ReadFrame()
		if err != nil {
			var fe *wire.FrameError
			if errors.As(err, &fe) && (errors.Is(err, wire.ErrChecksum) || errors.Is(err, wire.ErrUnknownCommand)) &&
				fe.Cmd.GetMessage() == nil {
				c.log.Warn("skipping bad frame", "err", err)
				continue
			}
			if errors.As(err, &fe) && fe.Cmd.GetMessage() != nil {
				// A MESSAGE whose payload is corrupt: the consumer decides.
				c.lastRead.Store(time.Now().UnixNano())
				c.route(&wire.Frame{Cmd: fe.Cmd}, err)
				continue
			}
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				c.log.Warn("read failed; closing", "err", err)
			}
			c.closeWith(fmt.Errorf("read: %w", err))
			return
		}
		c.lastRead.Store(time.Now().UnixNano())
		c.route(&f, nil)
	}
}

// route hands one received command to whoever waits for it.
func (c *Conn) route(f *wire.Frame, frameErr error) {
	cmd := f.Cmd
	switch cmd.GetType() {
	case proto.BaseCommand_PING:
		_ = c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PONG.Enum(), Pong: &proto.CommandPong{}})
	case proto.BaseCommand_PONG:
	case proto.BaseCommand_AUTH_CHALLENGE:
		go c.answerChallenge(cmd.GetAuthChallenge())
	case proto.BaseCommand_MESSAGE:
		m := cmd.GetMessage()
		if h := c.consumer(m.GetConsumerId()); h != nil {
			h.Message(m, f, frameErr)
		}
	case proto.BaseCommand_SEND_RECEIPT:
		r := cmd.GetSendReceipt()
		if h := c.producer(r.GetProducerId()); h != nil {
			h.Receipt(r)
		}
	case proto.BaseCommand_SEND_ERROR:
		e := cmd.GetSendError()
		if h := c.producer(e.GetProducerId()); h != nil {
			h.SendError(e)
		}
	case proto.BaseCommand_CLOSE_PRODUCER:
		id := cmd.GetCloseProducer().GetProducerId()
		if h := c.producer(id); h != nil {
			c.UnregisterProducer(id)
			h.Closed()
		}
	case proto.BaseCommand_CLOSE_CONSUMER:
		id := cmd.GetCloseConsumer().GetConsumerId()
		if h := c.consumer(id); h != nil {
			c.UnregisterConsumer(id)
			h.Closed()
		}
	case proto.BaseCommand_ACTIVE_CONSUMER_CHANGE:
		m := cmd.GetActiveConsumerChange()
		if h := c.consumer(m.GetConsumerId()); h != nil {
			h.ActiveChanged(m.GetIsActive())
		}
	case proto.BaseCommand_WATCH_TOPIC_UPDATE:
		u := cmd.GetWatchTopicUpdate()
		if h := c.watcher(u.GetWatcherId()); h != nil {
			h.Update(u)
		}
	case proto.BaseCommand_REACHED_END_OF_TOPIC:
		if h := c.consumer(cmd.GetReachedEndOfTopic().GetConsumerId()); h != nil {
			h.ReachedEndOfTopic()
		}
	default:
		if id, ok := wire.RequestID(cmd); ok {
			c.complete(id, cmd)
			return
		}
		c.log.Debug("ignoring command", "type", cmd.GetType())
	}
}
