package conn

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// maxRedirects bounds lookup redirects, as the official clients do.
const maxRedirects = 20

// Pool keeps Options.MaxConnsPerBroker connections (default one) per
// broker address, shared by the producers and consumers of a client, and
// closes those idle for Options.MaxIdle.
type Pool struct {
	opts Options

	mu     sync.Mutex
	conns  map[string]*dialing // by slotKey
	closed bool
	stop   chan struct{} // closed by Close: ends the idle reaper
}

// dialing is a pool slot: the connection, or the dial in progress.
type dialing struct {
	done chan struct{}
	conn *Conn
	err  error
}

// NewPool returns an empty pool dialing with opts.
func NewPool(opts Options) *Pool {
	opts = opts.withDefaults()
	if opts.Buffers == nil {
		opts.Buffers = wire.NewBufferPool()
	}
	p := &Pool{opts: opts, conns: map[string]*dialing{}, stop: make(chan struct{})}
	if opts.MaxIdle > 0 {
		go p.reapIdle()
	}
	return p
}

// Get returns the open connection to addr ("host:port") of slot 0 (the one
// lookups use), dialing it if there is none; concurrent callers share one
// dial.
func (p *Pool) Get(ctx context.Context, addr string) (*Conn, error) { return p.GetSlot(ctx, addr, 0) }

// GetSlot is Get of the connection key picks among the MaxConnsPerBroker
// connections to addr (key modulo their number): a producer or consumer
// passes its id, which spreads them round robin.
func (p *Pool) GetSlot(ctx context.Context, addr string, key uint64) (*Conn, error) {
	slot := slotKey(addr, key%uint64(p.opts.MaxConnsPerBroker))
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	d := p.conns[slot]
	if d != nil {
		select {
		case <-d.done:
			if d.err != nil || d.conn.Err() != nil {
				d = nil // failed or closed: dial again
			}
		default:
		}
	}
	if d == nil {
		d = &dialing{done: make(chan struct{})}
		p.conns[slot] = d
		go func() {
			d.conn, d.err = Dial(context.Background(), addr, p.opts)
			close(d.done)
		}()
	}
	p.mu.Unlock()
	select {
	case <-d.done:
		return d.conn, d.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close closes every connection; Get fails afterwards.
func (p *Pool) Close() {
	p.mu.Lock()
	if !p.closed {
		close(p.stop)
	}
	p.closed = true
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, d := range conns {
		<-d.done
		if d.conn != nil {
			d.conn.Close()
		}
	}
}

// HostPort returns the "host:port" of a pulsar:// or pulsar+ssl:// URL; a
// URL with several hosts yields the first.
func HostPort(serviceURL string) (string, error) {
	u, err := url.Parse(serviceURL)
	if err != nil {
		return "", fmt.Errorf("service URL %q: %w", serviceURL, err)
	}
	if u.Scheme != "pulsar" && u.Scheme != "pulsar+ssl" {
		return "", fmt.Errorf("service URL %q: scheme must be pulsar or pulsar+ssl", serviceURL)
	}
	host := u.Host
	for i := 0; i < len(host); i++ {
		if host[i] == ',' {
			host = host[:i]
			break
		}
	}
	if host == "" {
		return "", fmt.Errorf("service URL %q: no host", serviceURL)
	}
	if u.Port() == "" {
		if u.Scheme == "pulsar+ssl" {
			host += ":6651"
		} else {
			host += ":6650"
		}
	}
	return host, nil
}

// Lookup finds the broker serving topic, asking serviceAddr first and
// following redirects. It returns the address to connect to.
func (p *Pool) Lookup(ctx context.Context, serviceAddr, topic string) (string, error) {
	addr, authoritative := serviceAddr, false
	for range maxRedirects {
		c, err := p.Get(ctx, addr)
		if err != nil {
			return "", err
		}
		rid := c.NewRequestID()
		lookup := &proto.CommandLookupTopic{Topic: &topic, RequestId: &rid, Authoritative: &authoritative,
			Properties: keyValues(p.opts.LookupProperties)}
		if p.opts.ListenerName != "" {
			lookup.AdvertisedListenerName = &p.opts.ListenerName
		}
		resp, err := c.Request(ctx, rid, &proto.BaseCommand{Type: proto.BaseCommand_LOOKUP.Enum(), LookupTopic: lookup})
		if err != nil {
			return "", fmt.Errorf("lookup %s: %w", topic, err)
		}
		r := resp.GetLookupTopicResponse()
		target := r.GetBrokerServiceUrl()
		if p.opts.TLS != nil && r.GetBrokerServiceUrlTls() != "" {
			target = r.GetBrokerServiceUrlTls()
		}
		next := serviceAddr
		if !r.GetProxyThroughServiceUrl() {
			if next, err = HostPort(target); err != nil {
				return "", fmt.Errorf("lookup %s: broker answered %w", topic, err)
			}
		}
		switch r.GetResponse() {
		case proto.CommandLookupTopicResponse_Connect:
			return next, nil
		case proto.CommandLookupTopicResponse_Redirect:
			addr, authoritative = next, r.GetAuthoritative()
			continue
		}
		return "", fmt.Errorf("lookup %s: unexpected response %s", topic, r.GetResponse())
	}
	return "", fmt.Errorf("%w: %s", ErrTooManyRedirects, topic)
}

// PartitionedMetadata returns the number of partitions of topic (0 for a
// topic without partitions).
func (p *Pool) PartitionedMetadata(ctx context.Context, serviceAddr, topic string) (int, error) {
	c, err := p.Get(ctx, serviceAddr)
	if err != nil {
		return 0, err
	}
	rid := c.NewRequestID()
	resp, err := c.Request(ctx, rid, &proto.BaseCommand{Type: proto.BaseCommand_PARTITIONED_METADATA.Enum(),
		PartitionMetadata: &proto.CommandPartitionedTopicMetadata{Topic: gproto.String(topic), RequestId: &rid}})
	if err != nil {
		return 0, fmt.Errorf("partitioned metadata of %s: %w", topic, err)
	}
	return int(resp.GetPartitionMetadataResponse().GetPartitions()), nil
}

// IsRetriable reports whether err from this package may go away on retry:
// a closed connection, a timeout, or a retriable broker error.
func IsRetriable(err error) bool {
	var se *ServerError
	if errors.As(err, &se) {
		return se.Retriable()
	}
	return errors.Is(err, ErrClosed) || errors.Is(err, ErrTimeout)
}
