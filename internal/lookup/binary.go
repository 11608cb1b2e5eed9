package lookup

import (
	"context"
	"fmt"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
)

// Binary is the Service of a pulsar:// or pulsar+ssl:// URL: the binary
// protocol on the pooled connection to Addr.
type Binary struct {
	Pool *conn.Pool
	// Addr is the service URL's "host:port".
	Addr string
	// Metrics counts the lookups and partition-count requests. Default:
	// none.
	Metrics api.Recorder
}

// Lookup sends LOOKUP to Addr and follows redirects.
func (b *Binary) Lookup(ctx context.Context, topic string) (string, error) {
	b.Metrics.Add(api.MetricLookupRequests, 1)
	return b.Pool.Lookup(ctx, b.Addr, topic)
}

// PartitionedMetadata sends PARTITIONED_METADATA to Addr.
func (b *Binary) PartitionedMetadata(ctx context.Context, topic string) (int, error) {
	b.Metrics.Add(api.MetricPartitionedTopicMetadataRequests, 1)
	return b.Pool.PartitionedMetadata(ctx, b.Addr, topic)
}

// TopicsOfNamespace sends GET_TOPICS_OF_NAMESPACE (mode PERSISTENT, no
// pattern: the caller filters) with hash to Addr.
func (b *Binary) TopicsOfNamespace(ctx context.Context, ns, hash string) (Topics, error) {
	c, err := b.Pool.Get(ctx, b.Addr)
	if err != nil {
		return Topics{}, err
	}
	rid := c.NewRequestID()
	m := &proto.CommandGetTopicsOfNamespace{RequestId: &rid, Namespace: &ns,
		Mode: proto.CommandGetTopicsOfNamespace_PERSISTENT.Enum()}
	if hash != "" {
		m.TopicsHash = &hash
	}
	resp, err := c.Request(ctx, rid, &proto.BaseCommand{Type: proto.BaseCommand_GET_TOPICS_OF_NAMESPACE.Enum(), GetTopicsOfNamespace: m})
	if err != nil {
		return Topics{}, fmt.Errorf("topics of namespace %s: %w", ns, err)
	}
	r := resp.GetGetTopicsOfNamespaceResponse()
	if r == nil {
		return Topics{}, fmt.Errorf("topics of namespace %s: unexpected %s", ns, resp.GetType())
	}
	if !r.GetChanged() && hash != "" && r.GetTopicsHash() == hash {
		return Topics{Hash: hash, Unchanged: true}, nil
	}
	return Topics{Names: r.GetTopics(), Hash: r.GetTopicsHash()}, nil
}

// WatchConn returns the connection topic-list watchers go on: the one to
// Addr, where GET_TOPICS_OF_NAMESPACE goes too.
func (b *Binary) WatchConn(ctx context.Context) (*conn.Conn, error) {
	return b.Pool.Get(ctx, b.Addr)
}

// Watcher is implemented by a Service whose broker connection can carry
// topic-list watchers (Binary); an HTTP lookup cannot.
type Watcher interface {
	// WatchConn returns the connection to register watchers on (it may
	// dial it).
	WatchConn(ctx context.Context) (*conn.Conn, error)
}
