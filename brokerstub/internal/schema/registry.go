package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Store keeps the versions of each schema id; the broker's store
// implements it. Values are opaque to it.
type Store interface {
	// PutSchemas durably stores blob as the versions of id; nil deletes them.
	PutSchemas(id string, blob []byte) error
	// GetSchemas returns the versions of id and whether there are any.
	GetSchemas(id string) ([]byte, bool, error)
}

// Policy is what decides how a schema id's new schemas are admitted, at the
// broker, namespace or topic level (Pulsar's schemaCompatibilityStrategy,
// isAllowAutoUpdateSchemaEnabled and schemaValidationEnforced, and the
// namespace and topic policies of the same names).
type Policy struct {
	// Strategy decides compatibility; Undefined inherits the next level.
	Strategy Strategy
	// AutoUpdate, when set, says whether a producer may register a new
	// schema (false: only schemas already registered are accepted).
	AutoUpdate *bool
	// ValidationEnforced, when set, says whether a producer without a
	// schema is refused on a topic that has one.
	ValidationEnforced *bool
}

// Registry holds the schemas of every topic of a broker. It is broker-wide,
// not owned by a topic goroutine, because one schema id is shared by all
// partitions of a topic (each its own goroutine) and by the admin API; a
// mutex makes each check-and-register atomic. Versions are read from and
// written to the Store on every call, so a broker restart that reopens its
// store finds them again.
type Registry struct {
	store func() Store
	now   func() time.Time

	mu       sync.Mutex
	broker   Policy
	policies map[string]Policy // by "tenant/ns" or "tenant/ns/topic"
	lookup   func(scope string) (Policy, bool)
}

// SetLookup makes the registry read the policy of a scope ("tenant/ns" or
// "tenant/ns/topic") that SetPolicy did not set from lookup, at every
// check: the broker keeps its namespace and topic policies in its own
// store. lookup must not call the registry.
func (r *Registry) SetLookup(lookup func(scope string) (Policy, bool)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookup = lookup
}

// New returns a registry over the store that store returns at each call
// (the broker swaps its store on restart), with the broker-level policy
// def: Strategy Undefined means FULL, AutoUpdate nil means allowed and
// ValidationEnforced nil means not enforced, Pulsar's defaults.
func New(store func() Store, now func() time.Time, def Policy) *Registry {
	if def.Strategy == Undefined {
		def.Strategy = Full
	}
	return &Registry{store: store, now: now, broker: def, policies: map[string]Policy{}}
}

// SetPolicy sets the policy of a namespace ("tenant/ns") or of a topic
// ("tenant/ns/topic", the schema id); the zero Policy removes it. The admin
// API calls it for the schemaCompatibilityStrategy,
// isAllowAutoUpdateSchema and schemaValidationEnforced policies; it keeps
// them in memory, and the caller persists them with its other policies.
func (r *Registry) SetPolicy(scope string, p Policy) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p == (Policy{}) {
		delete(r.policies, scope)
		return
	}
	r.policies[scope] = p
}

// Effective returns the policy that applies to schema id: the topic's
// fields, else the namespace's, else the broker's.
func (r *Registry) Effective(id string) Policy {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.effectiveLocked(id)
}

func (r *Registry) effectiveLocked(id string) Policy {
	out := r.broker
	ns := id
	if i := strings.LastIndex(id, "/"); i >= 0 {
		ns = id[:i]
	}
	for _, scope := range []string{ns, id} {
		p, ok := r.policies[scope]
		if !ok && r.lookup != nil {
			p, ok = r.lookup(scope)
		}
		if !ok {
			continue
		}
		if p.Strategy != Undefined {
			out.Strategy = p.Strategy
		}
		if p.AutoUpdate != nil {
			out.AutoUpdate = p.AutoUpdate
		}
		if p.ValidationEnforced != nil {
			out.ValidationEnforced = p.ValidationEnforced
		}
	}
	return out
}

type storedVersion struct {
	Type      Type              `json:"type"`
	Data      []byte            `json:"data"`
	Props     map[string]string `json:"props,omitempty"`
	Deleted   bool              `json:"deleted,omitempty"`
	Timestamp int64             `json:"ts"`
}

func (r *Registry) load(id string) ([]storedVersion, error) {
	blob, ok, err := r.store().GetSchemas(id)
	if err != nil || !ok {
		return nil, err
	}
	var vs []storedVersion
	if err := json.Unmarshal(blob, &vs); err != nil {
		return nil, fmt.Errorf("schema: stored versions of %s: %w", id, err)
	}
	return vs, nil
}

func (r *Registry) save(id string, vs []storedVersion) error {
	if vs == nil {
		return r.store().PutSchemas(id, nil)
	}
	blob, err := json.Marshal(vs)
	if err != nil {
		return err
	}
	return r.store().PutSchemas(id, blob)
}

// live returns the index of the first version after the latest deletion
// (Pulsar's trimDeletedSchemaAndGetList): versions before it do not count.
func live(vs []storedVersion) int {
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].Deleted {
			return i + 1
		}
	}
	return 0
}

func (v storedVersion) schema() Schema { return Schema{Type: v.Type, Data: v.Data, Props: v.Props} }

// HasSchema reports whether id has a schema (its latest version is not a
// deletion).
func (r *Registry) HasSchema(id string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	vs, err := r.load(id)
	return err == nil && len(vs) > 0 && !vs[len(vs)-1].Deleted, err
}

// Get returns version v of id, or the latest when v < 0. A missing id or
// version, and a deleted schema, are ErrNotFound; so is a version from
// before the latest deletion, as Pulsar's getSchema(id, version) looks only
// among the versions trimDeletedSchemaAndGetList returns (a consumer that
// meets a message of a deleted schema cannot decode it).
func (r *Registry) Get(id string, v int64) (Version, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	vs, err := r.load(id)
	if err != nil {
		return Version{}, err
	}
	if v < 0 {
		v = int64(len(vs)) - 1
	}
	if v < int64(live(vs)) || v >= int64(len(vs)) || vs[v].Deleted {
		return Version{}, fmt.Errorf("%w: %s version %d", ErrNotFound, id, v)
	}
	sv := vs[v]
	return Version{Version: v, Schema: sv.schema(), Timestamp: sv.Timestamp}, nil
}

// All returns every version of id, deletion markers included, oldest first
// (what Pulsar's admin API lists); none is an empty slice.
func (r *Registry) All(id string) ([]Version, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	vs, err := r.load(id)
	out := make([]Version, 0, len(vs))
	for i, sv := range vs {
		out = append(out, Version{Version: int64(i), Schema: sv.schema(), Deleted: sv.Deleted, Timestamp: sv.Timestamp})
	}
	return out, err
}

// AddSchema is what a producer's schema, and GET_OR_CREATE_SCHEMA, go
// through (Pulsar's AbstractTopic.addSchema and putSchemaIfAbsent): a
// schema already registered since the latest deletion returns its version;
// a new one is registered, when auto update is allowed, if it is compatible
// with the latest version (or with all, for a transitive strategy).
func (r *Registry) AddSchema(id string, s Schema) (int64, error) { return r.add(id, s, true) }

// Register is what the admin API's schema upload goes through (Pulsar's
// putSchemaIfAbsent called by POST .../schema): AddSchema without the
// auto-update policy, which only governs producers.
func (r *Registry) Register(id string, s Schema) (int64, error) { return r.add(id, s, false) }

func (r *Registry) add(id string, s Schema, producer bool) (int64, error) {
	if err := Validate(s); err != nil {
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	vs, err := r.load(id)
	if err != nil {
		return 0, err
	}
	first := live(vs)
	for i := first; i < len(vs); i++ {
		if sameSchema(vs[i].schema(), s) {
			return int64(i), nil
		}
	}
	pol := r.effectiveLocked(id)
	if producer && pol.AutoUpdate != nil && !*pol.AutoUpdate {
		return 0, fmt.Errorf("%w: Schema not found and schema auto updating is disabled", ErrIncompatible)
	}
	if first < len(vs) {
		from := vs[len(vs)-1:]
		if pol.Strategy.transitive() {
			from = vs[first:]
		}
		if err := checkCompatible(schemas(from), s, pol.Strategy); err != nil {
			return 0, err
		}
	}
	vs = append(vs, storedVersion{Type: s.Type, Data: s.Data, Props: s.Props, Timestamp: r.now().UnixMilli()})
	if err := r.save(id, vs); err != nil {
		return 0, err
	}
	return int64(len(vs) - 1), nil
}

func schemas(vs []storedVersion) []Schema {
	out := make([]Schema, len(vs))
	for i, v := range vs {
		out[i] = v.schema()
	}
	return out
}

// CheckProducerWithoutSchema is Pulsar's check of a producer that sends no
// schema: refused when id has a schema and validation is enforced.
func (r *Registry) CheckProducerWithoutSchema(id string) error {
	has, err := r.HasSchema(id)
	if err != nil || !has || !isTrue(r.Effective(id).ValidationEnforced) {
		return err
	}
	return fmt.Errorf("%w: Producers cannot connect or send message without a schema to topics with a schema if SchemaValidationEnforced is enabled", ErrIncompatible)
}

func isTrue(b *bool) bool { return b != nil && *b }

// CheckConsumer is what a consumer's schema goes through (Pulsar's
// addSchemaIfIdleOrCheckCompatible): on an idle topic (active false: no
// schema, producers, consumers with a schema or data) it is registered as a
// producer's would be; otherwise it must be compatible with the topic's
// schema, BACKWARD with the latest version for BACKWARD, FORWARD,
// FORWARD_TRANSITIVE and FULL, under the strategy against all versions for
// the others, and a topic without a schema refuses it.
func (r *Registry) CheckConsumer(id string, s Schema, active bool) error {
	if err := Validate(s); err != nil {
		return err
	}
	has, err := r.HasSchema(id)
	if err != nil {
		return err
	}
	if !has && !active {
		_, err := r.AddSchema(id, s)
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	strategy := r.effectiveLocked(id).Strategy
	if strategy == AlwaysCompatible {
		return nil
	}
	vs, err := r.load(id)
	if err != nil {
		return err
	}
	first := live(vs)
	if first == len(vs) {
		return fmt.Errorf("%w: Failed to add schema to an active topic with empty(BYTES) schema: new schema type %s", ErrIncompatible, s.Type)
	}
	switch strategy {
	case Backward, Forward, ForwardTransitive, Full:
		return checkCompatible(schemas(vs[len(vs)-1:]), s, Backward)
	case AlwaysIncompatible:
		return fmt.Errorf("%w: Schema compatibility strategy is ALWAYS_INCOMPATIBLE", ErrIncompatible)
	}
	return checkCompatible(schemas(vs[first:]), s, strategy)
}

// Delete deletes id's schema, as Pulsar's DELETE
// /admin/v2/schemas/{tenant}/{ns}/{topic}/schema does. Without force it
// appends a deletion marker as a new version and returns that version: the
// schema is gone for producers, consumers and GET_SCHEMA, and the next
// schema registered is checked against nothing and numbered after the
// marker. With force every version is removed, and numbering starts at 0
// again; it returns -1. Deleting an id without a schema is not an error
// and, without force, writes no marker (-1).
func (r *Registry) Delete(id string, force bool) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	vs, err := r.load(id)
	if err != nil && !force {
		return -1, err
	}
	if force {
		return -1, r.save(id, nil)
	}
	if len(vs) == 0 || vs[len(vs)-1].Deleted {
		return -1, nil
	}
	vs = append(vs, storedVersion{Type: None, Data: []byte{}, Deleted: true, Timestamp: r.now().UnixMilli()})
	if err := r.save(id, vs); err != nil {
		return -1, err
	}
	return int64(len(vs) - 1), nil
}

// IsRefusal reports whether err is a refusal of the schema (answered with
// IncompatibleSchema) rather than a failure of the registry.
func IsRefusal(err error) bool {
	return errors.Is(err, ErrIncompatible) || errors.Is(err, ErrInvalid)
}

// IsCompatible checks s against id's schema without registering it, as the
// admin API's POST /admin/v2/schemas/{tenant}/{ns}/{topic}/compatibility
// does (Pulsar's checkCompatible): against the latest version, or all since
// the latest deletion for a transitive strategy. An id without a schema
// accepts any valid schema.
func (r *Registry) IsCompatible(id string, s Schema) error {
	if err := Validate(s); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	vs, err := r.load(id)
	if err != nil {
		return err
	}
	first := live(vs)
	if first == len(vs) {
		return nil
	}
	strategy := r.effectiveLocked(id).Strategy
	from := vs[len(vs)-1:]
	if strategy.transitive() {
		from = vs[first:]
	}
	return checkCompatible(schemas(from), s, strategy)
}

// FindVersion returns the version of id, since the latest deletion, whose
// type and data are s's (Pulsar's findSchemaVersion compares SchemaHash,
// the hash of both), or -1 when there is none, as the admin API's POST
// .../version answers.
func (r *Registry) FindVersion(id string, s Schema) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	vs, err := r.load(id)
	if err != nil {
		return -1, err
	}
	for i := live(vs); i < len(vs); i++ {
		if vs[i].Type == s.Type && bytes.Equal(vs[i].Data, s.Data) {
			return int64(i), nil
		}
	}
	return -1, nil
}
