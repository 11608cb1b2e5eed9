package brokerstub

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/admin"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// TestNamespacePoliciesNameEveryStoredPolicy: GET …/namespaces/{t}/{ns}
// answers the policies it has a field for, so every policy the admin API
// stores (namespacePolicyFields, and bookieAffinity's field) must have
// one, or setting it would not show in the namespace's Policies.
func TestNamespacePoliciesNameEveryStoredPolicy(t *testing.T) {
	names := map[string]bool{}
	typ := reflect.TypeFor[admin.NamespacePolicies]()
	for i := range typ.NumField() {
		tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		names[tag] = true
	}
	stored := []string{"bookie_affinity_group", "bundles", "backlog_quota_map", "auth_policies"}
	for _, field := range engine.NamespacePolicyFields {
		stored = append(stored, field)
	}
	for _, f := range stored {
		if !names[f] {
			t.Errorf("namespacePolicies has no field for the stored policy %q: add it (json.RawMessage, omitempty)", f)
		}
	}
}
