package engine

// What the binary protocol (internal/protocol) reads of the broker as a
// whole through methods rather than the Engine's fields.

import "github.com/pulsargo/sdk/brokerstub/internal/schema"

// Schema is version v of the schema stored under id (SchemaID; v -1: the
// latest), or schema.ErrNotFound.
func (b *Engine) Schema(id string, v int64) (schema.Version, error) { return b.schemas.Get(id, v) }

// TxnEnabled reports whether the transaction coordinator runs
// (Options.TransactionCoordinatorEnabled).
func (b *Engine) TxnEnabled() bool { return b.tc.Load() != nil }
