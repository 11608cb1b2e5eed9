package policy

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

type mapKV map[string][]byte

func (m mapKV) PutMeta(k string, v []byte) error { m[k] = append([]byte{}, v...); return nil }
func (m mapKV) GetMeta(k string) ([]byte, bool, error) {
	v, ok := m[k]
	return v, ok, nil
}

func TestStandaloneStateAndReload(t *testing.T) {
	kv := mapKV{}
	s, err := Load(kv, "standalone", json.RawMessage("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Tenants(); !slices.Equal(got, []string{"public", "pulsar"}) {
		t.Fatalf("tenants = %v", got)
	}
	if !s.HasNamespace("public/default") || !s.HasNamespace("pulsar/system") {
		t.Fatal("standalone namespaces missing")
	}
	if err := s.CreateTenant("acme", Tenant{AllowedClusters: []string{"standalone"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateTenant("acme", Tenant{}); !errors.Is(err, ErrExists) {
		t.Errorf("second create: %v, want ErrExists", err)
	}
	if err := s.CreateTenant("x", Tenant{AllowedClusters: []string{"nowhere"}}); !errors.Is(err, ErrPrecondition) {
		t.Errorf("tenant in a missing cluster: %v, want ErrPrecondition", err)
	}
	if err := s.CreateNamespace("acme/ns", nil); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateNamespace("nobody/ns", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("namespace of a missing tenant: %v, want ErrNotFound", err)
	}
	if err := s.DeleteTenant("acme", false); !errors.Is(err, ErrExists) {
		t.Errorf("delete a tenant with namespaces: %v, want ErrExists", err)
	}
	if err := s.SetNamespacePolicy("acme/ns", "message_ttl_in_seconds", json.RawMessage("30")); err != nil {
		t.Fatal(err)
	}
	if err := s.Grant("acme/ns", "app", []string{"produce", "consume", "produce"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetTerminated("persistent://acme/ns/t"); err != nil {
		t.Fatal(err)
	}

	// A second Load from the same store finds everything again.
	r, err := Load(kv, "standalone", json.RawMessage("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok, err := r.NamespacePolicy("acme/ns", "message_ttl_in_seconds"); err != nil || !ok || string(v) != "30" {
		t.Errorf("policy after reload = %s %v %v", v, ok, err)
	}
	if _, perms, _ := r.Policies("acme/ns"); !slices.Equal(perms["app"], []string{"consume", "produce"}) {
		t.Errorf("permissions after reload = %v", perms)
	}
	if !r.Terminated("persistent://acme/ns/t") {
		t.Error("terminated flag lost on reload")
	}
	if err := r.DeleteTenant("acme", true); err != nil || r.HasNamespace("acme/ns") {
		t.Errorf("force delete: %v", err)
	}
}
