package brokerstub

import (
	"time"

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
// Interceptor.
type Event struct {
	// Conn numbers the client connection (1, 2, ... in accept order).
	Conn uint64
	// Dir is the direction of the command.
	Dir Direction
	// Type is the command type as Pulsar names it: "SEND", "ACK",
	// "SUBSCRIBE", "MESSAGE", "PING", ...
	Type string
	// RequestID is the command's request id, when it has one.
	RequestID uint64
	// HasRequestID reports whether RequestID is set.
	HasRequestID bool
	// Detail is the command in protobuf text form, for logs.
	Detail string
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
	ev := Event{Conn: connID, Dir: dir, Type: cmd.GetType().String(), Detail: cmd.String()}
	ev.RequestID, ev.HasRequestID = requestID(cmd)
	return (*p)(ev)
}

// failCode maps an Action's FailWith to a Pulsar ServerError.
func failCode(name string) proto.ServerError {
	if v, ok := proto.ServerError_value[name]; ok {
		return proto.ServerError(v)
	}
	return proto.ServerError_ServiceNotReady
}
