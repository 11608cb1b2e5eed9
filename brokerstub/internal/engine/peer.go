package engine

import (
	"net"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// peer is the connection a producer or consumer is attached through, as
// the data path (topics, subscriptions, dispatch) sees it: what it queues
// for the client and what it says of the client for stats, limits and
// logs. The binary protocol's *protocol.Conn implements it
// (internal/protocol/conn.go); the data path names no connection type. No
// method blocks: each queues for the connection's writer or
// reads what the connection knows.
type peer interface {
	// Deliver queues a payload frame: cmd (a MESSAGE) with e's metadata
	// and payload as stored, and e's checksum when it has one. cmd is
	// encoded at once and not kept: the caller may reuse it.
	Deliver(cmd *proto.BaseCommand, e ledger.Entry)
	// Send queues cmd (encoded at once, not kept).
	Send(cmd *proto.BaseCommand)
	// DropProducer forgets p on the connection if it is still the
	// producer registered under its id (closed, fenced or refused by the
	// topic), so that its client may attach a producer of that id again.
	DropProducer(p *Producer)
	// DropConsumer forgets the consumer of that id on the connection
	// (closed by the topic).
	DropConsumer(id uint64)
	// ConnID is the connection's number, in the names the broker gives
	// producers ("brokerstub-<conn>-<producer>").
	ConnID() uint64
	// RemoteAddr is the client's address.
	RemoteAddr() net.Addr
	// Version is CONNECT's client_version, for stats.
	Version() string
	// PartialProducer reports the supports_partial_producer feature flag
	// of CONNECT, for publisher stats.
	PartialProducer() bool
}
