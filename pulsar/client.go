package pulsar

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pulsargo/sdk/internal/backoff"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/consumer"
	"github.com/pulsargo/sdk/internal/lookup"
	"github.com/pulsargo/sdk/internal/topicname"
	"github.com/pulsargo/sdk/pulsar/auth"
	"github.com/pulsargo/sdk/pulsar/log"
)

// ClientOptions configure a Client. Field names follow the official Go
// client where it has the same option.
type ClientOptions struct {
	// URL is the service URL: pulsar://host:port or pulsar+ssl://host:port,
	// or the web service's http://host:port or https://host:port (lookups
	// and partition counts then go over the admin API's HTTP lookup, with
	// the TLS options and client certificate, and the credentials as an
	// Authorization header: Bearer for token and OAuth2, Basic for basic;
	// producers and
	// consumers still speak the binary protocol to the broker it names).
	// Required.
	URL string
	// ConnectionTimeout bounds dialing and the handshake. Default 10 s.
	ConnectionTimeout time.Duration
	// OperationTimeout bounds each request to the broker (lookup, subscribe,
	// seek, ...). Default 30 s.
	OperationTimeout time.Duration
	// KeepAliveInterval is the ping interval on idle connections.
	// Default 30 s.
	KeepAliveInterval time.Duration
	// Authentication supplies credentials (NewAuthenticationToken, ...TLS,
	// ...Basic, ...OAuth2, or NewAuthentication by plugin name); NewClient
	// checks it as the official client's Init does. Default nil: none.
	Authentication Authentication
	// The TLS options apply to pulsar+ssl:// and https:// URLs (brokers and
	// HTTP lookups alike); client_tls.go builds them into a tls.Config.

	// TLSTrustCertsFilePath is a PEM file of CAs to trust. Default: the
	// system pool.
	TLSTrustCertsFilePath string
	// TLSCertificateFile and TLSKeyFilePath are the PEM client certificate
	// and key presented to the broker (mTLS); both or neither. Default:
	// none, or the certificate of a TLS Authentication (which wins).
	TLSCertificateFile string
	TLSKeyFilePath     string
	// TLSAllowInsecureConnection accepts any broker certificate. Default
	// false.
	TLSAllowInsecureConnection bool
	// TLSValidateHostname checks the broker's certificate against the host
	// name dialed. Default false, as the official client (the chain is
	// still checked); set it in production.
	TLSValidateHostname bool
	// TLSCipherSuites are the TLS 1.0-1.2 cipher suites enabled (tls
	// package ids). Default: Go's.
	TLSCipherSuites []uint16
	// TLSMinVersion and TLSMaxVersion bound the TLS version
	// (tls.VersionTLS10 ... tls.VersionTLS13). Default: Go's (TLS 1.2 to
	// 1.3).
	TLSMinVersion uint16
	TLSMaxVersion uint16
	// TLSConfig, when set, is used as is and the TLS fields above (and a
	// TLS Authentication's certificate) are ignored, as the official client.
	TLSConfig *tls.Config
	// Dialer, when set, opens connections instead of net.Dialer — for
	// example brokerstub's in-memory Dial in tests. With an http(s):// URL
	// it opens the lookups' HTTP connections too.
	Dialer func(ctx context.Context, network, address string) (net.Conn, error)
	// MemoryLimitBytes caps the bytes of messages held by all producers
	// until the broker acknowledges them. A chunked message without
	// compression counts only its chunks in flight (handed to the
	// connection, not yet acknowledged), so it may be larger than the
	// limit; other messages count whole. Default 64 MiB; negative means no
	// limit.
	MemoryLimitBytes int64
	// ConsumerMemoryLimitBytes caps the bytes of messages waiting in the
	// receiver queues of all consumers and readers of the client,
	// decompressed (a message parked compressed counts its compressed
	// bytes). It is a budget of its own, apart from MemoryLimitBytes, so
	// that producers and consumers never wait on each other: the official
	// client (v0.19.0) counts consumers against MemoryLimitBytes, where a
	// handler that publishes can wait for its own consumers' queues
	// (apache/pulsar-client-go#1455).
	// A message's declared uncompressed size is checked against it before
	// the message is decompressed: what does not fit stays compressed until
	// there is room or the application receives it; and while it is used
	// up, a consumer that has messages queued withholds its flow permits,
	// which resume as the application receives. A consumer with an empty
	// queue always gets its next message, so none starves for what others
	// hold: with Receive the limit is exceeded by no message that is not
	// being received; with MessageChannel or Chan, by at most one message
	// per partition consumed. Default 64 MiB; negative means no limit.
	ConsumerMemoryLimitBytes int64
	// Logger receives the client's logs (the official client's log.Logger;
	// log.NewLoggerWithSlog adapts a *slog.Logger). Default: discarded (the
	// official client logs to logrus's standard logger).
	Logger log.Logger
	// ListenerName is the broker listener to connect through: it is sent in
	// every LOOKUP (advertised_listener_name) and the broker answers with
	// that listener's address. Default: none (the broker's default
	// listener).
	ListenerName string
	// MaxConnectionsPerBroker is how many connections the client opens to
	// each broker; producers and consumers are spread over them round
	// robin. Default 1.
	MaxConnectionsPerBroker int
	// ConnectionMaxIdleTime closes a connection that has had no producer,
	// consumer or pending request for this long (it is checked every half
	// of it). Default 180 s; at least 60 s, else NewClient fails with
	// InvalidConfiguration; negative disables it.
	ConnectionMaxIdleTime time.Duration
	// LookupProperties are sent in every LOOKUP (properties), for a broker
	// that picks the serving broker by them. Default: none.
	LookupProperties map[string]string
	// Description is appended to the client version the broker sees:
	// "pulsargo-<Description>". Default: none.
	Description string
	// MetricsCardinality says which labels (tenant, namespace, topic) the
	// client's metrics carry, for the metrics module; the core has no
	// metrics library. Default MetricsCardinalityNamespace.
	MetricsCardinality MetricsCardinality
	// CustomMetricsLabels are added to every metric of the client, for the
	// metrics module. Default: none.
	CustomMetricsLabels map[string]string
	// MetricsRegisterer receives the client's metrics: a MetricsProvider,
	// such as pulsarprom.Registerer(prometheus.DefaultRegisterer) from the
	// module github.com/pulsargo/sdk/pulsar/pulsarprom, which registers the
	// official client's series. It is typed any so that the official
	// client's code (a prometheus.Registerer here) compiles unchanged; but
	// the core has no metrics library, so NewClient fails with
	// InvalidConfiguration for a value that is not a MetricsProvider (wrap
	// it with pulsarprom.Registerer). Default nil: no metrics (the official
	// client defaults to prometheus.DefaultRegisterer).
	MetricsRegisterer any
	// EnableTransaction makes the client a transaction client: NewClient
	// connects to every transaction coordinator (the partitions of
	// TransactionCoordinatorAssign) and fails if it cannot, or with
	// ErrTransactionCoordinatorNotEnabled when the cluster has none; then
	// NewTransaction works. Default false: NewTransaction fails with
	// ErrClientTransactionsNotEnabled. A transaction's sends and acks, and
	// Commit's and Abort's wait for them, are bounded by OperationTimeout.
	EnableTransaction bool
}

// MetricsCardinality is how specific the labels of the client's metrics
// are, as the official client's option of the same name.
type MetricsCardinality int

// Metrics cardinalities; the zero value means the default, namespace.
const (
	_ MetricsCardinality = iota
	// MetricsCardinalityNone: no tenant, namespace or topic label.
	MetricsCardinalityNone
	// MetricsCardinalityTenant: a tenant label.
	MetricsCardinalityTenant
	// MetricsCardinalityNamespace: tenant and namespace labels (default).
	MetricsCardinalityNamespace
	// MetricsCardinalityTopic: tenant, namespace and topic labels.
	MetricsCardinalityTopic
)

// Connection idle time limits, as the official client's.
const (
	defaultConnMaxIdleTime = 180 * time.Second
	minConnMaxIdleTime     = 60 * time.Second
)

// Client is a connection to a Pulsar cluster that creates producers,
// consumers and readers. It is safe for concurrent use.
type Client interface {
	// CreateProducer creates a producer on a topic.
	CreateProducer(ProducerOptions) (Producer, error)
	// Subscribe creates a consumer.
	Subscribe(ConsumerOptions) (Consumer, error)
	// CreateReader creates a reader.
	CreateReader(ReaderOptions) (Reader, error)
	// CreateTableView creates a view of the latest value per key of a topic.
	CreateTableView(TableViewOptions) (TableView, error)
	// TopicPartitions returns the partition names of a topic (the topic
	// itself for a topic without partitions).
	TopicPartitions(topic string) ([]string, error)
	// NewTransaction opens a transaction that the broker aborts if it has
	// not committed within timeout (see transaction.go). It needs
	// ClientOptions.EnableTransaction.
	NewTransaction(timeout time.Duration) (Transaction, error)
	// Close closes every producer, consumer and reader and the connections.
	Close()
}

// client is the Client implementation.
type client struct {
	opts   ClientOptions
	lookup lookup.Service
	pool   *conn.Pool
	log    *slog.Logger
	mem    *memoryLimit
	// consumerMem is the consumers' and readers' memory budget, nil for
	// none (ConsumerMemoryLimitBytes).
	consumerMem *consumer.Memory
	// metrics receives the client's events; nil for none.
	metrics ClientMetrics
	// tcClient is the transaction coordinator client, nil without
	// EnableTransaction (named as the official client's field, so that its
	// transaction tests that reach it compile against this package).
	tcClient *transactionCoordinatorClient

	ids atomic.Uint64 // producer and consumer ids

	mu      sync.Mutex
	closers map[closer]struct{}
	closed  bool
}

type closer interface{ Close() }

// NewClient returns a Client for the service URL. It does not connect
// until the first producer, consumer or reader needs it.
// On error the Client is nil (an untyped nil, so client == nil holds).
func NewClient(opts ClientOptions) (Client, error) {
	c, err := newClient(opts)
	if err != nil {
		return nil, err
	}
	return c, nil
}

func newClient(opts ClientOptions) (*client, error) {
	if opts.URL == "" {
		return nil, invalidOption(InvalidConfiguration, "URL is required for client")
	}
	if opts.ConnectionTimeout <= 0 {
		opts.ConnectionTimeout = 10 * time.Second
	}
	if opts.OperationTimeout <= 0 {
		opts.OperationTimeout = 30 * time.Second
	}
	if opts.MemoryLimitBytes == 0 {
		opts.MemoryLimitBytes = 64 << 20
	}
	if opts.ConsumerMemoryLimitBytes == 0 {
		opts.ConsumerMemoryLimitBytes = 64 << 20
	}
	switch idle := opts.ConnectionMaxIdleTime; {
	case idle == 0:
		opts.ConnectionMaxIdleTime = defaultConnMaxIdleTime
	case idle > 0 && idle < minConnMaxIdleTime:
		return nil, invalidOption(InvalidConfiguration, fmt.Sprintf("Connection max idle time should be at least %f seconds", minConnMaxIdleTime.Seconds()))
	}
	if opts.MetricsCardinality == 0 {
		opts.MetricsCardinality = MetricsCardinalityNamespace
	}
	metrics, err := newMetrics(opts)
	if err != nil {
		return nil, err
	}
	slogger := opts.logger()
	copts := conn.Options{
		OperationTimeout:  opts.OperationTimeout,
		KeepAlive:         opts.KeepAliveInterval,
		Logger:            slogger,
		ClientVersion:     clientVersion(opts.Description),
		ListenerName:      opts.ListenerName,
		LookupProperties:  opts.LookupProperties,
		MaxConnsPerBroker: opts.MaxConnectionsPerBroker,
		MaxIdle:           max(opts.ConnectionMaxIdleTime, 0),
	}
	c := &client{opts: opts, metrics: metrics}
	copts.Metrics = c.clientRecorder()
	if opts.Dialer != nil {
		copts.Dial = opts.Dialer
	}
	if err := initAuth(opts.Authentication); err != nil {
		return nil, err
	}
	if _, ok := lookup.TLSHost(opts.URL); ok {
		if copts.TLS, err = tlsConfig(opts); err != nil {
			return nil, err
		}
	}
	var invalidate func()
	if a := opts.Authentication; a != nil {
		copts.AuthMethod, copts.AuthData = a.Name(), a.GetData
		if ai, ok := a.(auth.Invalidator); ok {
			invalidate = ai.Invalidate
		}
	}
	pool := conn.NewPool(copts)
	ls, err := lookup.New(opts.URL, lookup.Options{Pool: pool, TLS: copts.TLS, Dial: opts.Dialer,
		AuthMethod: copts.AuthMethod, AuthData: copts.AuthData, AuthRejected: invalidate, Timeout: opts.OperationTimeout, Logger: slogger,
		Metrics: copts.Metrics})
	if err != nil {
		pool.Close()
		slogger.Error("invalid service URL", "err", err)
		return nil, invalidServiceURL(opts.URL, err)
	}
	c.lookup, c.pool, c.log = ls, pool, slogger
	c.mem, c.closers = newMemoryLimit(opts.MemoryLimitBytes), map[closer]struct{}{}
	c.consumerMem = consumer.NewMemory(opts.ConsumerMemoryLimitBytes)
	if opts.EnableTransaction {
		if err := c.startTransactions(); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// invalidServiceURL is the error of a service URL lookup.New refused (why):
// the official Result and text, then the URL and what a valid one looks
// like.
func invalidServiceURL(url string, why error) error {
	return invalidOption(InvalidConfiguration, fmt.Sprintf(
		"Invalid service URL %q (%v): want scheme://host:port[,host:port...] with scheme pulsar, pulsar+ssl, http or https, "+
			"e.g. pulsar://localhost:6650 (binary protocol) or http://localhost:8080 (HTTP lookup)", url, why))
}

// logger is the client's logger as a *slog.Logger.
func (o ClientOptions) logger() *slog.Logger { return log.Slog(o.Logger) }

// clientVersion is the version reported in CONNECT: "pulsargo", with the
// description after a dash, as the official client appends it to its own.
func clientVersion(description string) string {
	if description == "" {
		return "pulsargo"
	}
	return "pulsargo-" + description
}

// register tracks a producer, consumer or reader so Close can close it.
func (c *client) register(x closer) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClientClosed
	}
	c.closers[x] = struct{}{}
	return nil
}

func (c *client) unregister(x closer) {
	c.mu.Lock()
	delete(c.closers, x)
	c.mu.Unlock()
}

func (c *client) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	xs := make([]closer, 0, len(c.closers))
	for x := range c.closers {
		xs = append(xs, x)
	}
	c.mu.Unlock()
	for _, x := range xs {
		x.Close()
	}
	if l, ok := c.lookup.(closer); ok {
		l.Close()
	}
	c.pool.Close()
}

func (c *client) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// connFor looks the topic up and returns the connection to its broker (of
// the MaxConnectionsPerBroker connections, the one id picks), retrying
// what may pass (a connection that just closed, a broker restarting) until
// ctx ends.
func (c *client) connFor(ctx context.Context, topic string, id uint64) (*conn.Conn, error) {
	var cn *conn.Conn
	err := c.retry(ctx, func() error {
		addr, err := c.lookup.Lookup(ctx, topic)
		if err != nil {
			return err
		}
		cn, err = c.pool.GetSlot(ctx, addr, id)
		return err
	})
	return cn, err
}

// retry runs op until it succeeds, fails with an error that is not
// retriable, or ctx ends (then the last error is returned), backing off
// between attempts.
func (c *client) retry(ctx context.Context, op func() error) error {
	bo := backoff.New(50*time.Millisecond, time.Second)
	for {
		err := op()
		if err == nil || !conn.IsRetriable(err) || c.isClosed() {
			return err
		}
		c.log.Debug("retrying", "err", err)
		t := time.NewTimer(bo.Next())
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return err
		}
	}
}

// TopicPartitions returns the partitions of topic, or the topic itself.
func (c *client) TopicPartitions(topic string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.OperationTimeout)
	defer cancel()
	return c.partitions(ctx, topic)
}

func (c *client) partitions(ctx context.Context, topic string) ([]string, error) {
	name, err := topicname.Parse(topic)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	var n int
	err = c.retry(ctx, func() error {
		var err error
		n, err = c.lookup.PartitionedMetadata(ctx, name.Full)
		return err
	})
	if err != nil {
		return nil, wrapErr("partitions of "+name.Full, err)
	}
	if n == 0 {
		return []string{name.Full}, nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = topicname.PartitionName(name.Full, i)
	}
	return out, nil
}

// nextID returns a producer or consumer id unique in this client.
func (c *client) nextID() uint64 { return c.ids.Add(1) }
