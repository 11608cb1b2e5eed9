package brokerstub

import (
	"net/http"
	"strings"
	"testing"
)

// TestAdminMissingTenantIsNotFound: a role that is no super-user gets 404
// "Tenant does not exist" for a tenant, namespace-policy or topic-policy
// operation on a tenant that does not exist, as Pulsar's
// validateTenantAdminAccess answers before it judges the role (the
// official pulsaradmin tests TestNamespaces_SetSchemaCompatibilityStrategy
// and TestSetTopicAutoCreation expect it); on an existing tenant the same
// role is refused.
func TestAdminMissingTenantIsNotFound(t *testing.T) {
	b := newAuthzBroker(t, "")
	for _, c := range []struct {
		method, path, body string
	}{
		{http.MethodPost, "/admin/v2/namespaces/%s/default/schemaCompatibilityStrategy", `"FULL"`},
		{http.MethodPost, "/admin/v2/namespaces/%s/default/autoTopicCreation", `{"allowAutoTopicCreation":true,"topicType":"non-partitioned"}`},
		{http.MethodPost, "/admin/v2/persistent/%s/default/t/maxProducers", `3`},
	} {
		missing := strings.Replace(c.path, "%s", "non-exist", 1)
		if code, body := b.do("producer", c.method, missing, c.body); code != http.StatusNotFound || !strings.Contains(body, "Tenant does not exist") {
			t.Errorf("%s %s: %d %s, want 404 Tenant does not exist", c.method, missing, code, body)
		}
		existing := strings.Replace(c.path, "%s", "private", 1)
		if code, _ := b.do("producer", c.method, existing, c.body); code != http.StatusForbidden && code != http.StatusUnauthorized {
			t.Errorf("%s %s: %d, want a refusal", c.method, existing, code)
		}
	}
}
