package brokerstub

import (
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/protocol"
	"github.com/pulsargo/sdk/internal/proto"
)

// Direction says which way a command travels.
type Direction int

const (
	// Inbound commands come from a client to the broker.
	Inbound Direction = iota
	// Outbound commands go from the broker to a client.
	Outbound
)

// String returns "inbound" or "outbound".
func (d Direction) String() string {
	if d == Outbound {
		return "outbound"
	}
	return "inbound"
}

// Event describes one command passing through the broker, for an
// Interceptor. Besides the type it carries the ids the command names, decoded,
// so that tests need not parse Detail.
type Event struct {
	// Conn numbers the client connection (1, 2, ... in accept order).
	Conn uint64
	// Dir is the direction of the command.
	Dir Direction
	// Type is the command type as Pulsar names it: CmdSend ("SEND"), CmdAck
	// ("ACK"), CmdMessage ("MESSAGE"), ...
	Type Command
	// RequestID is the command's request id, when it has one.
	RequestID uint64
	// HasRequestID reports whether RequestID is set.
	HasRequestID bool
	// ProducerID is the command's producer_id (PRODUCER, SEND, SEND_RECEIPT,
	// SEND_ERROR, CLOSE_PRODUCER, ...), when it has one.
	ProducerID uint64
	// HasProducerID reports whether ProducerID is set.
	HasProducerID bool
	// ConsumerID is the command's consumer_id (SUBSCRIBE, FLOW, MESSAGE, ACK,
	// SEEK, CLOSE_CONSUMER, ...), when it has one.
	ConsumerID uint64
	// HasConsumerID reports whether ConsumerID is set.
	HasConsumerID bool
	// SequenceID is the command's sequence_id (SEND, SEND_RECEIPT,
	// SEND_ERROR), when it has one.
	SequenceID uint64
	// HasSequenceID reports whether SequenceID is set.
	HasSequenceID bool
	// MessageIDs are the ledger:entry message ids the command names, in
	// order: one for SEND_RECEIPT, MESSAGE, SEEK (by id) and
	// GET_LAST_MESSAGE_ID_RESPONSE (the last message id), every id of an ACK
	// or a REDELIVER_UNACKNOWLEDGED_MESSAGES; nil for other commands.
	// MessageID returns the first.
	MessageIDs []Position
	// ValidationError is an ACK's validation_error, the reason a consumer
	// gives for acknowledging a message it could not read
	// ("ChecksumMismatch", "DecompressionError", ...); "" when there is none.
	ValidationError string
	// Detail is the command in protobuf text form, for logs. Its format is
	// not stable: match on the fields above instead.
	Detail string
}

// MessageID returns the first of MessageIDs, and false when the command
// names no message id.
func (e Event) MessageID() (Position, bool) {
	if len(e.MessageIDs) == 0 {
		return Position{}, false
	}
	return e.MessageIDs[0], true
}

// Action is an Interceptor's verdict on a command. The zero Action lets the
// command pass unchanged.
type Action struct {
	// Delay holds the command back this long before it is handled (inbound)
	// or written (outbound). Commands behind it on the same connection wait
	// too, as they would behind a slow network.
	Delay time.Duration
	// Drop discards the command: it is neither handled nor written.
	Drop bool
	// Fail answers an inbound command with a Pulsar error instead of handling
	// it (CommandError, or CommandSendError for SEND). Ignored outbound.
	Fail bool
	// FailWith is the Pulsar ServerError name for Fail, such as
	// "ServiceNotReady" or "PersistenceError". Default "ServiceNotReady".
	FailWith string
	// CloseConn closes the connection instead of passing the command.
	CloseConn bool
}

// Interceptor observes, and may delay, drop or fail, every command. It is
// called from connection goroutines and must be safe for concurrent use.
type Interceptor func(Event) Action

// intercept applies the broker's interceptor, if any, to a command.
func (b *Broker) intercept(connID uint64, dir Direction, cmd *proto.BaseCommand) Action {
	p := b.interceptor.Load()
	if p == nil {
		return Action{}
	}
	ev := Event{Conn: connID, Dir: dir, Type: Command(cmd.GetType().String()), Detail: cmd.String()}
	ev.RequestID, ev.HasRequestID = protocol.RequestID(cmd)
	decodeIDs(&ev, cmd)
	return (*p)(ev)
}

// interceptVerdict is intercept for the protocol (server.go): what the
// Interceptor's Action says to do with a command.
func (b *Broker) interceptVerdict(connID uint64, outbound bool, cmd *proto.BaseCommand) protocol.Verdict {
	dir := Inbound
	if outbound {
		dir = Outbound
	}
	act := b.intercept(connID, dir, cmd)
	return protocol.Verdict{CloseConn: act.CloseConn, Delay: act.Delay, Drop: act.Drop, Fail: act.Fail, FailCode: failCode(act.FailWith)}
}

// failCode maps an Action's FailWith to a Pulsar ServerError.
func failCode(name string) proto.ServerError {
	if v, ok := proto.ServerError_value[name]; ok {
		return proto.ServerError(v)
	}
	return proto.ServerError_ServiceNotReady
}
