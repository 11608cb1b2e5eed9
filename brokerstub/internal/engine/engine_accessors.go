package engine

import (
	"log/slog"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/policy"
	"github.com/pulsargo/sdk/brokerstub/internal/schema"
	"github.com/pulsargo/sdk/brokerstub/internal/store"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
)

// What the rooms around the engine (admin) read of it through methods
// rather than its fields: its logger, schema registry, the store's
// partition counts and metadata, the transaction coordinator and the
// topic-list watchers' hook. Any goroutine.

// Logger is the broker's logger.
func (b *Engine) Logger() *slog.Logger { return b.log }

// SchemaRegistry is the broker's schema registry (schema_registry.go).
func (b *Engine) SchemaRegistry() *schema.Registry { return b.schemas }

// SetPartitions stores the partition count of the partitioned topic full,
// 0 to forget it. The caller tells the topic-list watchers
// (NotifyTopicsChanged).
func (b *Engine) SetPartitions(full string, n int) error { return b.st.SetPartitions(full, n) }

// MetaKV is the store's metadata key-value space, ok false when the store
// cannot keep metadata.
func (b *Engine) MetaKV() (kv policy.KV, ok bool) {
	kv, ok = b.st.(policy.KV)
	return kv, ok
}

// TxnCoordinator is the transaction coordinator, nil unless transactions
// are enabled.
func (b *Engine) TxnCoordinator() *txn.Coordinator { return b.tc.Load() }

// NotifyTopicsChanged tells the topic-list watchers that the topics of a
// namespace changed (the TopicsChanged hook).
func (b *Engine) NotifyTopicsChanged() { b.topicsChanged() }

// Store is where the broker keeps its state (Options.DataDir, or memory).
func (b *Engine) Store() store.Store { return b.st }

// EntryCache is the entry bytes kept in memory over a data dir, nil
// without one.
func (b *Engine) EntryCache() *ledger.Cache { return b.cache }

// UnackedBlocked reports whether the broker-wide unacked limit
// (Options.Limits.MaxUnackedMessagesPerBroker) holds the dispatch of the
// subscriptions it blocked.
func (b *Engine) UnackedBlocked() bool { return b.unacked.blocked.Load() }
