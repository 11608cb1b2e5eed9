// Package policy holds brokerstub's admin state — clusters, tenants,
// namespaces with their policies and permissions, and topic-level policies
// and flags — and persists it, as one JSON document, in the broker's store
// after every change, so that it survives Restart like topics do.
//
// State is safe for concurrent use: it has its own mutex. It never holds
// topic state (that is owned by the topic goroutines).
package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Errors returned by State, wrapped with a reason; the admin API maps them
// to HTTP status codes (404, 409, 412).
var (
	ErrNotFound     = errors.New("not found")
	ErrExists       = errors.New("already exists")
	ErrPrecondition = errors.New("precondition failed")
)

// KV is where State persists itself (brokerstub's store.MetaStore).
type KV interface {
	PutMeta(key string, val []byte) error
	GetMeta(key string) ([]byte, bool, error)
}

// metaKey is the store key of the state document.
const metaKey = "admin-state"

// Tenant is Pulsar's TenantInfo.
type Tenant struct {
	AdminRoles      []string `json:"adminRoles"`
	AllowedClusters []string `json:"allowedClusters"`
}

// Namespace is a namespace's policies (Pulsar's Policies document, by its
// JSON field names) and permissions (role -> actions).
type Namespace struct {
	Policies    map[string]json.RawMessage `json:"policies"`
	Permissions map[string][]string        `json:"permissions"`
}

// Topic is what the admin API keeps about one topic (by full name): its
// topic-level policies and whether it was terminated.
type Topic struct {
	Policies   map[string]json.RawMessage `json:"policies,omitempty"`
	Terminated bool                       `json:"terminated,omitempty"`
}

type doc struct {
	Clusters   map[string]json.RawMessage `json:"clusters"`
	Tenants    map[string]Tenant          `json:"tenants"`
	Namespaces map[string]*Namespace      `json:"namespaces"`
	Topics     map[string]*Topic          `json:"topics"`
	Dynamic    map[string]string          `json:"dynamicConfig,omitempty"`
}

// State is the admin state of one broker.
type State struct {
	mu sync.Mutex
	kv KV
	d  doc
}

// Load reads the state from kv; when kv holds none it starts as a Pulsar
// standalone does: the cluster (with data, Pulsar's ClusterData), tenants
// "public" and "pulsar", namespaces "public/default" and "pulsar/system".
func Load(kv KV, cluster string, data json.RawMessage) (*State, error) {
	s := &State{kv: kv}
	raw, ok, err := kv.GetMeta(metaKey)
	if err != nil {
		return nil, fmt.Errorf("policy: load: %w", err)
	}
	if ok {
		if err := json.Unmarshal(raw, &s.d); err != nil {
			return nil, fmt.Errorf("policy: decode: %w", err)
		}
	}
	if s.d.Clusters == nil {
		s.d.Clusters = map[string]json.RawMessage{}
	}
	if s.d.Tenants == nil {
		s.d.Tenants = map[string]Tenant{}
	}
	if s.d.Namespaces == nil {
		s.d.Namespaces = map[string]*Namespace{}
	}
	if s.d.Topics == nil {
		s.d.Topics = map[string]*Topic{}
	}
	if !ok {
		s.d.Clusters[cluster] = data
		for _, t := range []string{"public", "pulsar"} {
			s.d.Tenants[t] = Tenant{AdminRoles: []string{}, AllowedClusters: []string{cluster}}
		}
		for _, ns := range []string{"public/default", "pulsar/system"} {
			s.d.Namespaces[ns] = newNamespace(cluster, nil)
		}
		if err := s.saveLocked(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func newNamespace(cluster string, pol map[string]json.RawMessage) *Namespace {
	if pol == nil {
		pol = map[string]json.RawMessage{}
	}
	if _, ok := pol["replication_clusters"]; !ok {
		pol["replication_clusters"] = mustJSON([]string{cluster})
	}
	return &Namespace{Policies: pol, Permissions: map[string][]string{}}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called with plain values
	}
	return b
}

func (s *State) saveLocked() error {
	b, err := json.Marshal(&s.d)
	if err != nil {
		return fmt.Errorf("policy: encode: %w", err)
	}
	if err := s.kv.PutMeta(metaKey, b); err != nil {
		return fmt.Errorf("policy: save: %w", err)
	}
	return nil
}

// update runs f under the lock and saves when it succeeds.
func (s *State) update(f func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := f(); err != nil {
		return err
	}
	return s.saveLocked()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Clusters returns the cluster names, sorted.
func (s *State) Clusters() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedKeys(s.d.Clusters)
}

// Cluster returns a cluster's ClusterData.
func (s *State) Cluster(name string) (json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.d.Clusters[name]
	if !ok {
		return nil, fmt.Errorf("%w: Cluster %s does not exist", ErrNotFound, name)
	}
	return c, nil
}

// Tenants returns the tenant names, sorted.
func (s *State) Tenants() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedKeys(s.d.Tenants)
}

// Tenant returns a tenant.
func (s *State) Tenant(name string) (Tenant, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.d.Tenants[name]
	if !ok {
		return Tenant{}, fmt.Errorf("%w: Tenant does not exist", ErrNotFound)
	}
	return t, nil
}

func (s *State) checkClustersLocked(t *Tenant) error {
	if t.AdminRoles == nil {
		t.AdminRoles = []string{}
	}
	if t.AllowedClusters == nil {
		t.AllowedClusters = []string{}
	}
	for _, c := range t.AllowedClusters {
		if _, ok := s.d.Clusters[c]; !ok {
			return fmt.Errorf("%w: Clusters do not exist", ErrPrecondition)
		}
	}
	return nil
}

// CreateTenant creates a tenant: ErrExists if it exists, ErrPrecondition if
// an allowed cluster does not exist.
func (s *State) CreateTenant(name string, t Tenant) error {
	return s.update(func() error {
		if _, ok := s.d.Tenants[name]; ok {
			return fmt.Errorf("%w: Tenant already exists", ErrExists)
		}
		if err := s.checkClustersLocked(&t); err != nil {
			return err
		}
		s.d.Tenants[name] = t
		return nil
	})
}

// UpdateTenant replaces a tenant's info.
func (s *State) UpdateTenant(name string, t Tenant) error {
	return s.update(func() error {
		if _, ok := s.d.Tenants[name]; !ok {
			return fmt.Errorf("%w: Tenant does not exist", ErrNotFound)
		}
		if err := s.checkClustersLocked(&t); err != nil {
			return err
		}
		s.d.Tenants[name] = t
		return nil
	})
}

// DeleteTenant deletes a tenant; with namespaces left it is refused with
// ErrExists (Pulsar's 409) unless force, which deletes them too.
func (s *State) DeleteTenant(name string, force bool) error {
	return s.update(func() error {
		if _, ok := s.d.Tenants[name]; !ok {
			return fmt.Errorf("%w: Tenant does not exist", ErrNotFound)
		}
		for ns := range s.d.Namespaces {
			if strings.HasPrefix(ns, name+"/") {
				if !force {
					return fmt.Errorf("%w: The tenant still has active namespaces", ErrExists)
				}
				delete(s.d.Namespaces, ns)
			}
		}
		delete(s.d.Tenants, name)
		return nil
	})
}

// Namespaces returns the namespaces of a tenant ("tenant/ns"), sorted.
func (s *State) Namespaces(tenant string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.d.Tenants[tenant]; !ok {
		return nil, fmt.Errorf("%w: Tenant does not exist", ErrNotFound)
	}
	out := []string{}
	for _, ns := range sortedKeys(s.d.Namespaces) {
		if strings.HasPrefix(ns, tenant+"/") {
			out = append(out, ns)
		}
	}
	return out, nil
}

// HasNamespace reports whether the namespace "tenant/ns" exists.
func (s *State) HasNamespace(ns string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.d.Namespaces[ns]
	return ok
}

// CreateNamespace creates "tenant/ns" with the given policies (may be nil).
func (s *State) CreateNamespace(ns string, pol map[string]json.RawMessage) error {
	tenant, _, _ := strings.Cut(ns, "/")
	return s.update(func() error {
		t, ok := s.d.Tenants[tenant]
		if !ok {
			return fmt.Errorf("%w: Tenant does not exist", ErrNotFound)
		}
		if _, ok := s.d.Namespaces[ns]; ok {
			return fmt.Errorf("%w: Namespace already exists", ErrExists)
		}
		cluster := ""
		if len(t.AllowedClusters) > 0 {
			cluster = t.AllowedClusters[0]
		} else if cs := sortedKeys(s.d.Clusters); len(cs) > 0 {
			cluster = cs[0]
		}
		s.d.Namespaces[ns] = newNamespace(cluster, pol)
		return nil
	})
}

// DeleteNamespace deletes a namespace (the caller checked it has no topics).
func (s *State) DeleteNamespace(ns string) error {
	return s.update(func() error {
		if _, ok := s.d.Namespaces[ns]; !ok {
			return fmt.Errorf("%w: Namespace does not exist", ErrNotFound)
		}
		delete(s.d.Namespaces, ns)
		return nil
	})
}

func (s *State) nsLocked(ns string) (*Namespace, error) {
	n, ok := s.d.Namespaces[ns]
	if !ok {
		return nil, fmt.Errorf("%w: Namespace does not exist", ErrNotFound)
	}
	return n, nil
}

// Policies returns a copy of a namespace's policies and permissions.
func (s *State) Policies(ns string) (map[string]json.RawMessage, map[string][]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.nsLocked(ns)
	if err != nil {
		return nil, nil, err
	}
	pol := make(map[string]json.RawMessage, len(n.Policies))
	for k, v := range n.Policies {
		pol[k] = slices.Clone(v)
	}
	perms := make(map[string][]string, len(n.Permissions))
	for k, v := range n.Permissions {
		perms[k] = slices.Clone(v)
	}
	return pol, perms, nil
}

// NamespacePolicy returns one policy field of a namespace and whether it
// is set.
func (s *State) NamespacePolicy(ns, field string) (json.RawMessage, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.nsLocked(ns)
	if err != nil {
		return nil, false, err
	}
	v, ok := n.Policies[field]
	return slices.Clone(v), ok, nil
}

// SetNamespacePolicy sets (val != nil) or removes (val == nil) one policy
// field of a namespace.
func (s *State) SetNamespacePolicy(ns, field string, val json.RawMessage) error {
	return s.update(func() error {
		n, err := s.nsLocked(ns)
		if err != nil {
			return err
		}
		if val == nil {
			delete(n.Policies, field)
		} else {
			n.Policies[field] = slices.Clone(val)
		}
		return nil
	})
}

// UpdateNamespacePolicy sets one policy field of a namespace to what f
// makes of its current value (nil when unset; f returning nil removes the
// field), under the state's lock: concurrent updates of a field do not
// lose each other. An error of f leaves the field as it was.
func (s *State) UpdateNamespacePolicy(ns, field string, f func(json.RawMessage) (json.RawMessage, error)) error {
	return s.update(func() error {
		n, err := s.nsLocked(ns)
		if err != nil {
			return err
		}
		val, err := f(slices.Clone(n.Policies[field]))
		if err != nil {
			return err
		}
		if val == nil {
			delete(n.Policies, field)
		} else {
			n.Policies[field] = slices.Clone(val)
		}
		return nil
	})
}

// Grant gives role the actions on the namespace; Revoke (actions nil)
// removes the role.
func (s *State) Grant(ns, role string, actions []string) error {
	return s.update(func() error {
		n, err := s.nsLocked(ns)
		if err != nil {
			return err
		}
		if actions == nil {
			delete(n.Permissions, role)
			return nil
		}
		a := slices.Clone(actions)
		sort.Strings(a)
		n.Permissions[role] = slices.Compact(a)
		return nil
	})
}
