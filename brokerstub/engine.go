package brokerstub

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

// engine is the data path: the loaded topics and what they share (the
// store, the entry cache, the schema registry, the policies, the
// transaction coordinator, the broker-wide limits and the periodic
// sweeps). A Broker embeds it and adds the listeners, the connections and
// the admin server; engine's methods name none of those, read their own
// configuration (engine_config.go) rather than Options, and reach the
// protocol side only through the hooks below, so that the data path can
// become a package of its own (issue #34, docs/architecture.md).
type engine struct {
	cfg engineConfig // engine_config.go
	log *slog.Logger

	schemas *schema.Registry // schema_registry.go
	cache   *ledger.Cache    // entry bytes in memory (Options.EntryCacheSize); nil without a DataDir
	st      store.Store

	// mu guards topics and stopped.
	mu       sync.Mutex
	topics   map[string]*topic
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

// startTopics opens the engine for topics, at start and after a restart.
func (e *engine) startTopics() {
	e.mu.Lock()
	e.topics = make(map[string]*topic)
	e.stopped = false
	e.mu.Unlock()
}

// stopTopics stops the transaction coordinator and then every loaded topic
// (flushing its cursors when graceful), and waits for their goroutines.
// Topics asked for until startTopics are refused with ErrClosed.
func (e *engine) stopTopics(graceful bool) {
	e.mu.Lock()
	e.stopped = true
	topics := e.topics
	e.topics = map[string]*topic{}
	e.mu.Unlock()
	e.stopCoordinator() // txn.go: before the topics it calls stop
	for _, t := range topics {
		t.stop(graceful)
	}
	e.topicsWG.Wait()
}

// loadedTopic returns the loaded topic named full, or nil.
func (e *engine) loadedTopic(full string) *topic {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.topics[full]
}

// loadedTopics returns the topics loaded now.
func (e *engine) loadedTopics() []*topic {
	e.mu.Lock()
	defer e.mu.Unlock()
	ts := make([]*topic, 0, len(e.topics))
	for _, t := range e.topics {
		ts = append(ts, t)
	}
	return ts
}
