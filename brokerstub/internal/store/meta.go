package store

// MetaStore is implemented by both stores (NewMemory and OpenBolt): a small
// key/value space beside the topics, for the broker's admin state — tenants,
// namespaces, policies, topic flags — so that it survives Restart (and, with
// OpenBolt, the process) like entries and cursors do. Values are copied in
// and out. It is a separate interface so that Store stays unchanged for its
// other users.
type MetaStore interface {
	// PutMeta durably stores val under key (non-empty), replacing any
	// previous value; a nil val deletes the key.
	PutMeta(key string, val []byte) error
	// GetMeta returns a copy of the value under key and whether there is one.
	GetMeta(key string) ([]byte, bool, error)
}
