package engine

import (
	"log/slog"

	"github.com/pulsargo/sdk/brokerstub/internal/policy"
	"github.com/pulsargo/sdk/brokerstub/internal/schema"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
)

// What the rooms around the engine (admin) read of it through methods
// rather than its fields: its logger, schema registry, the store's
// partition counts and metadata, the transaction coordinator and the
// topic-list watchers' hook. Any goroutine.

// Logger is the broker's logger.
func (b *Engine) Logger() *slog.Logger { return b.Log }

// SchemaRegistry is the broker's schema registry (schema_registry.go).
func (b *Engine) SchemaRegistry() *schema.Registry { return b.Schemas }

// SetPartitions stores the partition count of the partitioned topic full,
// 0 to forget it. The caller tells the topic-list watchers
// (NotifyTopicsChanged).
func (b *Engine) SetPartitions(full string, n int) error { return b.St.SetPartitions(full, n) }

// MetaKV is the store's metadata key-value space, ok false when the store
// cannot keep metadata.
func (b *Engine) MetaKV() (kv policy.KV, ok bool) {
	kv, ok = b.St.(policy.KV)
	return kv, ok
}

// TxnCoordinator is the transaction coordinator, nil unless transactions
// are enabled.
func (b *Engine) TxnCoordinator() *txn.Coordinator { return b.Tc.Load() }

// NotifyTopicsChanged tells the topic-list watchers that the topics of a
// namespace changed (the TopicsChanged hook).
func (b *Engine) NotifyTopicsChanged() { b.TopicsChanged() }
