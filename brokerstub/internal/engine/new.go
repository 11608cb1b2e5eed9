package engine

import (
	"log/slog"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/store"
)

// New returns the data path of a broker configured by cfg, logging to log,
// keeping its state in st and loading its policies from it. cache keeps
// entry bytes in memory over a store that can read them back
// (Options.EntryCacheSize with a DataDir); nil without a DataDir, as
// memory is then the store. topicsChanged, if not nil, is called when a
// topic is created or deleted (the topic-list watchers of the protocol).
func New(cfg Config, log *slog.Logger, st store.Store, cache *ledger.Cache, topicsChanged func()) (*Engine, error) {
	e := &Engine{cfg: cfg, log: log, st: st, cache: cache, topicsChanged: topicsChanged}
	if e.topicsChanged == nil {
		e.topicsChanged = func() {}
	}
	schemas, err := newSchemaRegistry(e)
	if err != nil {
		return nil, err
	}
	e.schemas = schemas
	if err := e.loadPolicies(); err != nil {
		return nil, err
	}
	return e, nil
}

// ReplaceStore makes st the engine's store and loads the policies from it,
// when a broker restarts over its data dir; the topics are stopped, and
// the caller has closed the old store.
func (b *Engine) ReplaceStore(st store.Store) error {
	b.st = st
	return b.loadPolicies()
}
