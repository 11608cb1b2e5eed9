// Package engine is brokerstub's data path: the loaded topics, their
// subscriptions and dispatch, and what they share (the store, the entry
// cache, the schema registry, the policies, the transaction coordinator,
// the broker-wide limits and the periodic sweeps).
//
// Each topic is owned by one goroutine: code outside it runs on it with
// Topic.Do or Topic.Call. The binary protocol and the admin API see an
// Engine through interfaces of their own (protocol.Engine, admin.Engine)
// and use its topics, subscriptions, producers and consumers through
// methods named for what they do (protocol_ops_*.go, topic_admin_ops.go,
// subscription_admin_ops.go), never their fields; what they get back is
// data (TopicStats, InternalStats, SendRequest). A client connection is a
// peer the topic sends commands to (peer.go). The root package makes an
// Engine from its Options (Config) with New and serves it over the binary
// protocol, the admin API and the WebSocket API:
//
//	e, err := engine.New(cfg, logger, store.NewMemory(), nil, nil)
//	...
//	e.StartTopics()
//	t, err := e.TopicForUse(name) // loaded, or created on first use
//	...
//	e.StopTopics(true) // flush cursors, stop every topic
//
// The package never imports brokerstub's root (rooms_test.go).
package engine

import (
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/policy"
	"github.com/pulsargo/sdk/brokerstub/internal/schema"
	"github.com/pulsargo/sdk/brokerstub/internal/store"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
)

// Engine is the data path of one broker: the loaded topics, their lock,
// and what they share. The root makes one at start with New and calls
// StartTopics / StopTopics around each run of its listeners.
type Engine struct {
	cfg Config // config.go
	log *slog.Logger

	schemas *schema.Registry // schema_registry.go
	cache   *ledger.Cache    // entry bytes in memory (Options.EntryCacheSize); nil without a DataDir
	st      store.Store

	// mu guards topics and stopped.
	mu       sync.Mutex
	topics   map[string]*Topic
	stopped  bool           // set by stopTopics until the next startTopics
	topicsWG sync.WaitGroup // topic goroutines

	policies atomic.Pointer[policy.State] // tenants, namespaces, policies
	unacked  brokerUnacked                // the broker-wide unacked limit (unacked_broker.go)
	rates    brokerRates                  // broker-wide rate limits (ratelimit.go)
	sweeps   sweeps                       // periodic checks of the loaded topics (inactive.go)

	// tc is the transaction coordinator (txn.go); nil when off.
	tc atomic.Pointer[txn.Coordinator]

	// topicsChanged tells the topic-list watchers (the protocol side)
	// that a topic was created or deleted.
	topicsChanged func()
}

// StartTopics opens the engine for topics, at start and after a restart.
func (b *Engine) StartTopics() {
	b.mu.Lock()
	b.topics = make(map[string]*Topic)
	b.stopped = false
	b.mu.Unlock()
}

// StopTopics stops the transaction coordinator and then every loaded topic
// (flushing its cursors when graceful), and waits for their goroutines.
// Topics asked for until startTopics are refused with ErrClosed.
func (b *Engine) StopTopics(graceful bool) {
	b.mu.Lock()
	b.stopped = true
	topics := b.topics
	b.topics = map[string]*Topic{}
	b.mu.Unlock()
	b.stopCoordinator() // txn.go: before the topics it calls stop
	for _, t := range topics {
		t.stop(graceful)
	}
	b.topicsWG.Wait()
}

// LoadedTopic returns the loaded topic named full, or nil.
func (b *Engine) LoadedTopic(full string) *Topic {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.topics[full]
}

// LoadedTopics returns the topics loaded now.
func (b *Engine) LoadedTopics() []*Topic {
	b.mu.Lock()
	defer b.mu.Unlock()
	ts := make([]*Topic, 0, len(b.topics))
	for _, t := range b.topics {
		ts = append(ts, t)
	}
	return ts
}
