// Package conn is the client side of one Pulsar broker connection: dial and
// handshake, a reader and a writer goroutine, request ids matched to
// waiters, keepalive pings, and routing of pushed commands (messages,
// receipts, broker-initiated closes) to registered producers and consumers.
// A Pool shares one connection per broker address.
package conn

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/frameq"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// DialFunc opens the transport to a broker; tests pass brokerstub's
// in-memory Dial.
type DialFunc func(ctx context.Context, network, address string) (net.Conn, error)

// Options configure connections. Zero fields take the documented defaults.
type Options struct {
	// Dial opens the transport. Default: net.Dialer.DialContext.
	Dial DialFunc
	// TLS, when set, wraps the transport in TLS (pulsar+ssl://).
	TLS *tls.Config
	// AuthMethod and AuthData are sent in CONNECT (e.g. "token" and the
	// token). AuthData is called on every connect, and on every
	// AUTH_CHALLENGE of the broker (answered with AUTH_RESPONSE), so tokens
	// can refresh.
	AuthMethod string
	AuthData   func() ([]byte, error)
	// OperationTimeout bounds each request. Default 30 s.
	OperationTimeout time.Duration
	// KeepAlive is the ping interval; a connection that hears nothing for
	// twice as long is closed. Default 30 s.
	KeepAlive time.Duration
	// ClientVersion is reported to the broker. Default "pulsargo".
	ClientVersion string
	// Logger receives connection logs. Default: discarded.
	Logger *slog.Logger
	// Buffers recycles large frame buffers that consumers Release after
	// copying chunk payloads. Default: none (NewPool sets one shared by its
	// connections).
	Buffers *wire.BufferPool
	// ListenerName is sent in every LOOKUP (advertised_listener_name) so
	// the broker answers with that listener's address. Default: none.
	ListenerName string
	// LookupProperties are sent in every LOOKUP (properties). Default:
	// none.
	LookupProperties map[string]string
	// MaxConnsPerBroker is how many connections a Pool keeps per broker
	// address; producers and consumers are spread over them. Default 1.
	MaxConnsPerBroker int
	// MaxIdle makes a Pool close a connection that has had no producer,
	// consumer or pending request for this long (checked every MaxIdle/2,
	// so it closes after MaxIdle to 1.5 x MaxIdle). Default 0: never.
	MaxIdle time.Duration
	// Metrics receives the connection events (opened, closed, failed to
	// establish, failed the handshake) and a count of requests. Default:
	// none.
	Metrics api.Recorder
}

func (o Options) withDefaults() Options {
	if o.Dial == nil {
		var d net.Dialer
		o.Dial = d.DialContext
	}
	if o.OperationTimeout <= 0 {
		o.OperationTimeout = 30 * time.Second
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = 30 * time.Second
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "pulsargo"
	}
	if o.MaxConnsPerBroker <= 0 {
		o.MaxConnsPerBroker = 1
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// protocolVersion is the protocol version this client speaks.
const protocolVersion = int32(proto.ProtocolVersion_v20)

// Conn is one connection to a broker. Its methods are safe for concurrent
// use.
type Conn struct {
	addr string
	opts Options
	log  *slog.Logger
	nc   net.Conn
	out  *frameq.Queue[outFrame]

	maxMessageSize int
	topicWatchers  bool // the broker's supports_topic_watchers
	requestSeq     atomic.Uint64
	lastRead       atomic.Int64 // unix nanos of the last frame read

	mu        sync.Mutex
	waiters   map[uint64]chan response
	producers map[uint64]ProducerHandler
	consumers map[uint64]ConsumerHandler
	watchers  map[uint64]TopicListHandler

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

type response struct {
	cmd *proto.BaseCommand
	err error
}

// Dial connects to the broker at addr ("host:port") and performs the
// CONNECT handshake.
func Dial(ctx context.Context, addr string, opts Options) (*Conn, error) {
	opts = opts.withDefaults()
	c, err := dial(ctx, addr, opts)
	dialed(opts.Metrics, err)
	return c, err
}

func dial(ctx context.Context, addr string, opts Options) (*Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, opts.OperationTimeout)
	defer cancel()
	nc, err := opts.Dial(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w: dial %s: %w", ErrConnect, addr, err)
	}
	if opts.TLS != nil {
		tc := tls.Client(nc, tlsFor(opts.TLS, addr))
		if err := tc.HandshakeContext(ctx); err != nil {
			_ = nc.Close()
			return nil, fmt.Errorf("%w: tls %s: %w", ErrConnect, addr, err)
		}
		nc = tc
	}
	c := &Conn{
		addr: addr, opts: opts, nc: nc, out: frameq.New[outFrame](),
		log:       opts.Logger.With("broker", addr),
		waiters:   map[uint64]chan response{},
		producers: map[uint64]ProducerHandler{},
		consumers: map[uint64]ConsumerHandler{},
		watchers:  map[uint64]TopicListHandler{},
		closed:    make(chan struct{}),
	}
	if err := c.handshake(ctx); err != nil {
		_ = nc.Close()
		return nil, err
	}
	c.lastRead.Store(time.Now().UnixNano())
	go c.writeLoop()
	r := wire.NewReader(nc, c.maxMessageSize+wire.FramePadding)
	r.SetBufferPool(opts.Buffers)
	go c.readLoop(r)
	go c.keepAlive()
	return c, nil
}

// handshake sends CONNECT and waits for CONNECTED, synchronously, before the
// loops start.
func (c *Conn) handshake(ctx context.Context) error {
	connect := &proto.CommandConnect{
		ClientVersion:   gproto.String(c.opts.ClientVersion),
		ProtocolVersion: gproto.Int32(protocolVersion),
		FeatureFlags:    &proto.FeatureFlags{SupportsAuthRefresh: gproto.Bool(true)},
	}
	if c.opts.AuthMethod != "" {
		connect.AuthMethodName = gproto.String(c.opts.AuthMethod)
		if c.opts.AuthData != nil {
			data, err := c.opts.AuthData()
			if err != nil {
				return fmt.Errorf("%w: auth data: %w", ErrHandshake, err)
			}
			connect.AuthData = data
		}
	}
	frame, err := wire.AppendCommand(nil, &proto.BaseCommand{Type: proto.BaseCommand_CONNECT.Enum(), Connect: connect})
	if err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.nc.SetDeadline(dl)
		defer func() { _ = c.nc.SetDeadline(time.Time{}) }()
	}
	if _, err := c.nc.Write(frame); err != nil {
		return fmt.Errorf("%w: %w", ErrHandshake, err)
	}
	first := &firstBytes{r: c.nc}
	r := wire.NewReader(first, wire.DefaultMaxFrameSize)
	// A broker with a multi-stage method challenges before it connects;
	// the rounds are bounded so that one that keeps challenging fails.
	for range maxHandshakeChallenges + 1 {
		f, err := r.ReadFrame()
		if err != nil {
			if c.opts.TLS != nil && isTLSAlert(err) {
				// TLS 1.3 reports the broker's refusal of the client
				// certificate at the first read, after the handshake.
				return fmt.Errorf("%w: tls %s: %w", ErrConnect, c.addr, err)
			}
			if first.http() {
				return c.httpAnswer()
			}
			return fmt.Errorf("%w: %w", ErrHandshake, err)
		}
		switch f.Cmd.GetType() {
		case proto.BaseCommand_CONNECTED:
			c.maxMessageSize = announcedMaxMessageSize(f.Cmd.GetConnected().GetMaxMessageSize(), c.log)
			c.topicWatchers = f.Cmd.GetConnected().GetFeatureFlags().GetSupportsTopicWatchers()
			return nil
		case proto.BaseCommand_AUTH_CHALLENGE:
			resp, err := c.authResponse(f.Cmd.GetAuthChallenge())
			if err != nil {
				return fmt.Errorf("%w: %w", ErrHandshake, err)
			}
			if _, err := c.nc.Write(resp); err != nil {
				return fmt.Errorf("%w: %w", ErrHandshake, err)
			}
		case proto.BaseCommand_ERROR:
			e := f.Cmd.GetError()
			return fmt.Errorf("%w: %w", ErrHandshake, &ServerError{Code: e.GetError(), Message: e.GetMessage()})
		default:
			return fmt.Errorf("%w: unexpected %s", ErrHandshake, f.Cmd.GetType())
		}
	}
	return fmt.Errorf("%w: more than %d auth challenges", ErrHandshake, maxHandshakeChallenges)
}

// Addr returns the broker address this connection goes to.
func (c *Conn) Addr() string { return c.addr }

// MaxMessageSize returns the broker's max message size from the handshake.
func (c *Conn) MaxMessageSize() int { return c.maxMessageSize }

// NewRequestID returns a request id unique on this connection.
func (c *Conn) NewRequestID() uint64 { return c.requestSeq.Add(1) }

// Done is closed when the connection has closed.
func (c *Conn) Done() <-chan struct{} { return c.closed }

// Err returns why the connection closed, or nil while it is open.
func (c *Conn) Err() error {
	select {
	case <-c.closed:
		return c.closeErr
	default:
		return nil
	}
}

// Close closes the connection; waiters fail with ErrClosed and registered
// producers and consumers are told the connection is gone.
func (c *Conn) Close() { c.closeWith(ErrClosed) }

func (c *Conn) closeWith(err error) {
	c.closeOnce.Do(func() {
		c.closeErr = err
		close(c.closed)
		c.out.Close()
		_ = c.nc.Close()
		c.mu.Lock()
		waiters := c.waiters
		c.waiters = map[uint64]chan response{}
		prods, cons := c.producers, c.consumers
		c.producers = map[uint64]ProducerHandler{}
		c.consumers = map[uint64]ConsumerHandler{}
		watchers := c.watchers
		c.watchers = map[uint64]TopicListHandler{}
		c.mu.Unlock()
		for _, w := range waiters {
			w <- response{err: fmt.Errorf("%w: %w", ErrClosed, err)}
		}
		for _, p := range prods {
			p.ConnectionClosed()
		}
		for _, h := range cons {
			h.ConnectionClosed()
		}
		for _, h := range watchers {
			h.ConnectionClosed()
		}
		c.log.Debug("connection closed", "err", err)
		c.opts.Metrics.Add(api.MetricConnectionsClosed, 1)
	})
}

// keepAlive pings the broker every KeepAlive and closes the connection when
// nothing was heard for two intervals.
func (c *Conn) keepAlive() {
	t := time.NewTicker(c.opts.KeepAlive)
	defer t.Stop()
	for {
		select {
		case <-c.closed:
			return
		case <-t.C:
			if time.Since(time.Unix(0, c.lastRead.Load())) > 2*c.opts.KeepAlive {
				c.closeWith(fmt.Errorf("%w: no response to keepalive", ErrTimeout))
				return
			}
			c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
		}
	}
}
