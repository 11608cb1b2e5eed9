package store

// SchemaStore is implemented by both stores (NewMemory and OpenBolt): the
// schema registry's key space, one value per schema id
// ("tenant/namespace/topic") holding all of its versions, so that schemas
// survive Restart and Crash (and, with OpenBolt, the process) like entries
// and cursors. Values are copied in and out. It is a separate interface so
// that Store stays unchanged for its other users.
type SchemaStore interface {
	// PutSchemas durably stores blob as the schema versions of id
	// (non-empty), replacing any previous value; a nil blob deletes them.
	PutSchemas(id string, blob []byte) error
	// GetSchemas returns a copy of the versions stored for id and whether
	// there are any.
	GetSchemas(id string) ([]byte, bool, error)
}
