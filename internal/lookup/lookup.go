// Package lookup finds the broker that serves a topic, a topic's partition
// count and a namespace's topics, over the service URL the client was given:
// the binary protocol for pulsar:// and pulsar+ssl:// (LOOKUP,
// PARTITIONED_METADATA, GET_TOPICS_OF_NAMESPACE on a pooled connection), or
// the admin API's HTTP lookup for http:// and https://, as the official Go
// client's lookup services do. Either way producers and consumers then speak
// the binary protocol to the broker the lookup returned.
package lookup

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/conn"
)

// Service answers the client's metadata questions.
type Service interface {
	// Lookup returns the "host:port" of the broker serving topic.
	Lookup(ctx context.Context, topic string) (string, error)
	// PartitionedMetadata returns topic's partition count, 0 for a topic
	// without partitions (and for a partition's own name).
	PartitionedMetadata(ctx context.Context, topic string) (int, error)
	// TopicsOfNamespace lists the persistent topics of namespace ns
	// ("tenant/ns"; partitions by their partition names). hash is the hash
	// of the list the caller holds, "" for none.
	TopicsOfNamespace(ctx context.Context, ns, hash string) (Topics, error)
}

// Topics is a namespace's topic list.
type Topics struct {
	// Names are the topics; nil when Unchanged.
	Names []string
	// Hash is the broker's hash of the list (Pulsar's TopicList hash); ""
	// when the service gives none (HTTP).
	Hash string
	// Unchanged reports that the list still has the caller's hash.
	Unchanged bool
}

// Options configure New.
type Options struct {
	// Pool carries the binary protocol (lookups of pulsar:// URLs, and the
	// connections to brokers in every case). Required.
	Pool *conn.Pool
	// TLS is the configuration for https:// lookups (its client
	// certificate, if any, is presented); nil uses Go's defaults.
	TLS *tls.Config
	// Dial opens the HTTP lookups' TCP connections. Default net.Dialer.
	Dial conn.DialFunc
	// AuthMethod and AuthData are the client's credentials; HTTP lookups
	// send them as an Authorization header ("token": Bearer, "basic":
	// Basic) and ignore other methods.
	AuthMethod string
	AuthData   func() ([]byte, error)
	// AuthRejected, when set, is called when a web service answers 401, so
	// that cached credentials (an OAuth2 token) are fetched anew. Default:
	// none.
	AuthRejected func()
	// Timeout bounds each HTTP request including its retries over other
	// hosts. Default 30 s.
	Timeout time.Duration
	// Logger receives debug logs. Default: discarded.
	Logger *slog.Logger
	// Metrics counts the lookups and partition-count requests. Default:
	// none.
	Metrics api.Recorder
}

// New returns the Service for serviceURL: pulsar://, pulsar+ssl://, http://
// or https://, each with one or more comma-separated hosts.
func New(serviceURL string, opts Options) (Service, error) {
	scheme, hosts, err := parseServiceURL(serviceURL)
	if err != nil {
		return nil, err
	}
	switch scheme {
	case "pulsar", "pulsar+ssl":
		addr, err := conn.HostPort(serviceURL)
		if err != nil {
			return nil, err
		}
		return &Binary{Pool: opts.Pool, Addr: addr, Metrics: opts.Metrics}, nil
	case "http", "https":
		return newHTTP(scheme, hosts, opts), nil
	}
	return nil, fmt.Errorf("service URL %q: scheme must be pulsar, pulsar+ssl, http or https", serviceURL)
}

// parseServiceURL splits "scheme://host[:port][,host[:port]...][/path]"
// (net/url refuses several hosts) into its scheme and hosts.
func parseServiceURL(s string) (scheme string, hosts []string, err error) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || scheme == "" {
		return "", nil, fmt.Errorf("service URL %q: want scheme://host:port", s)
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	for h := range strings.SplitSeq(rest, ",") {
		if h == "" {
			return "", nil, fmt.Errorf("service URL %q: empty host", s)
		}
		hosts = append(hosts, h)
	}
	return scheme, hosts, nil
}

// TLSHost reports whether serviceURL's scheme asks for TLS (pulsar+ssl://
// or https://: brokers are then reached over TLS too) and the name of its
// first host, which certificates are checked against.
func TLSHost(serviceURL string) (host string, ok bool) {
	scheme, hosts, err := parseServiceURL(serviceURL)
	if err != nil || (scheme != "pulsar+ssl" && scheme != "https") {
		return "", false
	}
	host = hosts[0]
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return host, true
}
