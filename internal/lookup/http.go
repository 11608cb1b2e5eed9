package lookup

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/backoff"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/topicname"
)

// The paths of the admin API's HTTP lookup, as the official Go client's
// httpLookupService requests them (v2 topic names only).
const (
	lookupPath     = "/lookup/v2/topic/"
	partitionsPath = "/admin/v2/%s/partitions"
	topicsPath     = "/admin/v2/namespaces/%s/topics"
)

// Limits on what an HTTP answer may make the client read.
const (
	maxMetadataBody = 1 << 20  // a lookup or partition-count answer
	maxTopicsBody   = 64 << 20 // a namespace's topic list
)

// HTTP is the Service of an http:// or https:// URL: the admin API's
// lookup endpoints, each request to the next host of the URL in turn, and
// retried on the next host while it fails to connect (until the request
// timeout), as the official client's http client does.
type HTTP struct {
	scheme         string
	hosts          []string
	next           atomic.Uint32
	tls            bool
	client         *http.Client
	auth           func() (string, error)
	onAuthRejected func()
	timeout        time.Duration
	log            *slog.Logger
	metrics        api.Recorder
}

func newHTTP(scheme string, hosts []string, opts Options) *HTTP {
	h := &HTTP{scheme: scheme, tls: scheme == "https", timeout: opts.Timeout, log: opts.Logger, metrics: opts.Metrics}
	for _, host := range hosts {
		if _, port, err := net.SplitHostPort(host); err != nil || port == "" {
			if h.tls {
				host = net.JoinHostPort(host, "8443")
			} else {
				host = net.JoinHostPort(host, "8080")
			}
		}
		h.hosts = append(h.hosts, host)
	}
	if h.timeout <= 0 {
		h.timeout = 30 * time.Second
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 10, IdleConnTimeout: 90 * time.Second}
	if opts.Dial != nil {
		tr.DialContext = opts.Dial
	}
	if h.tls && opts.TLS != nil {
		tr.TLSClientConfig = opts.TLS.Clone()
	}
	h.client = &http.Client{Transport: tr, Timeout: h.timeout}
	h.auth = authHeader(opts.AuthMethod, opts.AuthData)
	h.onAuthRejected = opts.AuthRejected
	return h
}

// authHeader returns the Authorization header for the client's
// credentials, as the official client's providers set it over HTTP.
func authHeader(method string, data func() ([]byte, error)) func() (string, error) {
	if data == nil {
		return nil
	}
	var prefix string
	switch method {
	case "token":
		prefix = "Bearer "
	case "basic":
		return func() (string, error) {
			d, err := data()
			return "Basic " + base64.StdEncoding.EncodeToString(d), err
		}
	default:
		return nil
	}
	return func() (string, error) {
		d, err := data()
		// Trimmed as the official client does: a token read from a file
		// often ends in a newline, which no header may carry.
		return strings.TrimSpace(prefix + string(d)), err
	}
}

// Lookup asks GET /lookup/v2/topic/{domain}/{tenant}/{ns}/{topic} and
// returns the broker URL it names (brokerUrlTls over https).
func (h *HTTP) Lookup(ctx context.Context, topic string) (string, error) {
	h.metrics.Add(api.MetricLookupRequests, 1)
	n, err := topicname.Parse(topic)
	if err != nil {
		return "", err
	}
	var data struct {
		BrokerURL    string `json:"brokerUrl"`
		BrokerURLTLS string `json:"brokerUrlTls"`
	}
	if err := h.get(ctx, lookupPath+restPath(n), nil, &data, maxMetadataBody); err != nil {
		return "", fmt.Errorf("lookup %s: %w", n.Full, err)
	}
	target := data.BrokerURL
	if h.tls {
		target = data.BrokerURLTLS
	}
	addr, err := conn.HostPort(target)
	if err != nil {
		return "", fmt.Errorf("lookup %s: web service answered %w", n.Full, err)
	}
	return addr, nil
}

// PartitionedMetadata asks GET /admin/v2/{domain}/{tenant}/{ns}/{topic}/partitions
// with checkAllowAutoCreation=true, as the official client does.
func (h *HTTP) PartitionedMetadata(ctx context.Context, topic string) (int, error) {
	h.metrics.Add(api.MetricPartitionedTopicMetadataRequests, 1)
	n, err := topicname.Parse(topic)
	if err != nil {
		return 0, err
	}
	var md struct {
		Partitions int `json:"partitions"`
	}
	q := url.Values{"checkAllowAutoCreation": {"true"}}
	if err := h.get(ctx, fmt.Sprintf(partitionsPath, restPath(n)), q, &md, maxMetadataBody); err != nil {
		return 0, fmt.Errorf("partitioned metadata of %s: %w", n.Full, err)
	}
	if md.Partitions < 0 {
		return 0, fmt.Errorf("partitioned metadata of %s: %d partitions", n.Full, md.Partitions)
	}
	return md.Partitions, nil
}

// TopicsOfNamespace asks GET /admin/v2/namespaces/{ns}/topics?mode=PERSISTENT.
// The HTTP API has no hash: the list always comes whole.
func (h *HTTP) TopicsOfNamespace(ctx context.Context, ns, _ string) (Topics, error) {
	var names []string
	if err := h.get(ctx, fmt.Sprintf(topicsPath, ns), url.Values{"mode": {"PERSISTENT"}}, &names, maxTopicsBody); err != nil {
		return Topics{}, fmt.Errorf("topics of namespace %s: %w", ns, err)
	}
	return Topics{Names: names}, nil
}

// restPath is "{domain}/{tenant}/{ns}/{topic}" with the local name
// query-escaped, as the official client's GetTopicRestPath.
func restPath(n topicname.Name) string {
	local := n.Full[strings.LastIndexByte(n.Full, '/')+1:]
	return n.Domain + "/" + n.Namespace + "/" + url.QueryEscape(local)
}

// get sends GET path?query to the hosts in turn until one answers (a
// transport error moves to the next host after a backoff, until the
// request timeout or ctx ends), and decodes a 2xx JSON answer of at most
// limit bytes into out. Other statuses become *StatusError.
func (h *HTTP) get(ctx context.Context, path string, query url.Values, out any, limit int64) error {
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	bo := backoff.New(100*time.Millisecond, time.Second)
	for {
		host := h.hosts[int(h.next.Add(1))%len(h.hosts)]
		err := h.getFrom(ctx, host, path, query, out, limit)
		var ue *url.Error
		if err == nil || !errors.As(err, &ue) || ctx.Err() != nil {
			return err
		}
		h.log.Debug("http lookup failed; retrying", "host", host, "err", err)
		t := time.NewTimer(bo.Next())
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return err
		}
	}
}

func (h *HTTP) getFrom(ctx context.Context, host, path string, query url.Values, out any, limit int64) error {
	target := h.scheme + "://" + host + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "pulsargo")
	if h.auth != nil {
		v, err := h.auth()
		if err != nil {
			return fmt.Errorf("auth data: %w", err)
		}
		req.Header.Set("Authorization", v)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	body := io.LimitReader(resp.Body, limit+1)
	if resp.StatusCode == http.StatusUnauthorized && h.onAuthRejected != nil {
		h.onAuthRejected()
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return statusError(resp.StatusCode, body)
	}
	cr := &countingReader{r: body}
	if err := json.NewDecoder(cr).Decode(out); err != nil {
		if cr.n > limit {
			return fmt.Errorf("%w: answer longer than %d bytes", ErrBadAnswer, limit)
		}
		return fmt.Errorf("%w: %w", ErrBadAnswer, err)
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Close closes the idle HTTP connections.
func (h *HTTP) Close() { h.client.CloseIdleConnections() }
