package brokerstub

import "github.com/pulsargo/sdk/brokerstub/internal/engine"

// Tenancy configures what the admin API allows with tenants, namespaces
// and topic-level policies, with Pulsar's keys, defaults, codes and texts
// (TenantsBase, NamespacesBase, AdminResource).
type Tenancy struct {
	// ForceDeleteNamespaceAllowed lets DELETE of a namespace with
	// ?force=true delete it with its topics (forceDeleteNamespaceAllowed).
	// Default false, as Pulsar's: such a request is refused with 405
	// "Broker doesn't allow forced deletion of namespaces".
	ForceDeleteNamespaceAllowed bool
	// ForceDeleteTenantAllowed lets DELETE of a tenant with ?force=true
	// delete it with its namespaces and topics (forceDeleteTenantAllowed).
	// Default false, as Pulsar's: 405 "Broker doesn't allow forced deletion
	// of tenants".
	ForceDeleteTenantAllowed bool
	// MaxTenants refuses creating a tenant when this many exist, "public"
	// and "pulsar" counted, with 412 "Exceed the maximum number of
	// tenants" (maxTenants). Default 0: no limit.
	MaxTenants int
	// MaxNamespacesPerTenant refuses creating a namespace in a tenant that
	// has more than this many, with 412 "Exceed the maximum number of
	// namespace in tenant :<tenant>" (maxNamespacesPerTenant). Pulsar
	// compares with "more than", so a tenant reaches one over the limit;
	// brokerstub does the same. Default 0: no limit.
	MaxNamespacesPerTenant int
	// DefaultNumberOfNamespaceBundles is the number of bundles of a
	// namespace created without a bundles policy, as its policies report
	// them (defaultNumberOfNamespaceBundles). Default 4, as Pulsar's.
	DefaultNumberOfNamespaceBundles int
	// DisableTopicLevelPolicies refuses the topic-level policy calls of the
	// admin API with 405 "Topic level policies is disabled, to enable the
	// topic level policy and retry." (topicLevelPoliciesEnabled=false or
	// systemTopicEnabled=false, as Pulsar keeps topic policies in a system
	// topic). Default false: served.
	DisableTopicLevelPolicies bool
}

func (t Tenancy) withDefaults() Tenancy {
	if t.DefaultNumberOfNamespaceBundles <= 0 {
		t.DefaultNumberOfNamespaceBundles = 4
	}
	t.DefaultNumberOfNamespaceBundles = min(t.DefaultNumberOfNamespaceBundles, engine.MaxBundles)
	return t
}

// tenancy reads the keys of Tenancy (ParseConfig).
func (p *configParser) tenancy(o *Options) {
	t := &o.Tenancy
	t.ForceDeleteNamespaceAllowed = p.bool("forceDeleteNamespaceAllowed", false)
	t.ForceDeleteTenantAllowed = p.bool("forceDeleteTenantAllowed", false)
	t.MaxTenants = int(p.int("maxTenants", 0, 0))
	t.MaxNamespacesPerTenant = int(p.int("maxNamespacesPerTenant", 0, 0))
	t.DefaultNumberOfNamespaceBundles = int(p.int("defaultNumberOfNamespaceBundles", 4, 1))
	topicLevel := p.bool("topicLevelPoliciesEnabled", true)
	systemTopics := p.bool("systemTopicEnabled", true)
	t.DisableTopicLevelPolicies = !topicLevel || !systemTopics
}
