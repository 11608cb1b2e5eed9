package brokerstub

import (
	"crypto/tls"
	"log/slog"
	"time"

	"github.com/pulsargo/sdk/internal/clock"
	"github.com/pulsargo/sdk/internal/wire"
)

// Options configure a Broker. The zero value is a usable in-memory broker on
// a random loopback port.
type Options struct {
	// Addr is the TCP address to listen on. Default "127.0.0.1:0" (a free
	// port). Restart listens on the same address again.
	Addr string
	// NoListener, when set, opens no TCP listener: the broker serves only
	// the in-memory connections of Dial, and URL and lookups name the
	// placeholder address "brokerstub.invalid:6650" (a client dials it
	// through ClientOptions.Dialer = Broker.Dial). This is for tests under
	// testing/synctest, where a goroutine blocked on a real socket keeps the
	// bubble's fake clock from advancing. Default false.
	NoListener bool
	// MaxMessageSize is the largest message (metadata + payload) the broker
	// accepts, announced to clients in CommandConnected. Default 5 MiB, as
	// Pulsar's maxMessageSize.
	MaxMessageSize int
	// LedgerRolloverEntries is the number of entries after which a topic
	// starts a new ledger, so that ledger boundaries are exercised.
	// Default 50,000.
	LedgerRolloverEntries int
	// DisableAutoTopicCreation makes lookups, producers and subscriptions on
	// unknown topics fail with TopicNotFound. Default false: topics are
	// created on first use, as with Pulsar's allowAutoTopicCreation.
	DisableAutoTopicCreation bool
	// DisableBatchIndexAck makes the broker ignore ack_set in acks and never
	// send one (Pulsar's acknowledgmentAtBatchIndexLevelEnabled=false).
	// Default false: batch-index acks are on.
	DisableBatchIndexAck bool
	// BrokerDeduplicationEnabled turns on broker deduplication for every
	// persistent topic (Pulsar's brokerDeduplicationEnabled): a SEND whose
	// sequence id is at or below the highest one stored for its producer
	// name is answered with a receipt and not stored again, and
	// PRODUCER_SUCCESS carries that highest id as last_sequence_id. A
	// namespace policy overrides it. Default false, as Pulsar's.
	BrokerDeduplicationEnabled bool
	// KeyShared configures Key_Shared dispatch: selector and look-ahead
	// limits. Default: Pulsar 4.x's (see KeySharedOptions).
	KeyShared KeySharedOptions
	// KeepAliveInterval is how often the broker pings an idle client; a
	// client silent for twice as long is disconnected, as Pulsar's
	// keepAliveIntervalSeconds. Default 30 s.
	KeepAliveInterval time.Duration
	// CursorFlushInterval is how often dirty subscription cursors are
	// persisted (Pulsar's managedLedgerCursorPositionFlushSeconds).
	// Default 60 s.
	CursorFlushInterval time.Duration
	// DataDir, when set, keeps topics and cursors in a crash-safe store in
	// that directory (bbolt), so that the broker's data survives the process.
	// Default "": in memory, surviving Restart and Crash but not the process.
	DataDir string
	// TLS, when set, makes the listener speak TLS (clients connect with
	// pulsar+ssl://; URL and lookups say so). Default: plain TCP. Dial's
	// in-memory connections stay plain.
	TLS *tls.Config
	// Authenticate, when set, checks the credentials of every CONNECT (for
	// example method "token" and the token); an error refuses the
	// connection with AuthenticationError, as a broker with authentication
	// enabled does. Default: every client is accepted.
	Authenticate func(method string, data []byte) error
	// Clock is the broker's time source. Default: the real clock.
	Clock Clock
	// Logger receives the broker's logs. Default: discarded.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = wire.DefaultMaxMessageSize
	}
	if o.LedgerRolloverEntries <= 0 {
		o.LedgerRolloverEntries = 50_000
	}
	if o.KeepAliveInterval <= 0 {
		o.KeepAliveInterval = 30 * time.Second
	}
	if o.CursorFlushInterval <= 0 {
		o.CursorFlushInterval = 60 * time.Second
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
