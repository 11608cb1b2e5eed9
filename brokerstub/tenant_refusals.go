package brokerstub

import "net/http"

// refuseForceDeleteNamespace is Pulsar's answer to ?force=true on a
// namespace when the broker does not allow it.
func (b *engine) refuseForceDeleteNamespace(force bool) error {
	if force && !b.cfg.Tenancy.ForceDeleteNamespaceAllowed {
		return restErr(http.StatusMethodNotAllowed, msgNoForceDeleteNamespace)
	}
	return nil
}

// refuseForceDeleteTenant is Pulsar's answer to ?force=true on a tenant
// when the broker does not allow it (TenantsBase).
func (b *engine) refuseForceDeleteTenant(force bool) error {
	if force && !b.cfg.Tenancy.ForceDeleteTenantAllowed {
		return restErr(http.StatusMethodNotAllowed, msgNoForceDeleteTenant)
	}
	return nil
}

// refuseNewTenant is 412 when the broker has MaxTenants tenants.
func (b *engine) refuseNewTenant() error {
	if n := b.cfg.Tenancy.MaxTenants; n > 0 && len(b.pol().Tenants()) >= n {
		return restErr(http.StatusPreconditionFailed, msgMaxTenants)
	}
	return nil
}

// refuseNewNamespace is 412 when the tenant has more than
// MaxNamespacesPerTenant namespaces (Pulsar's comparison).
func (b *engine) refuseNewNamespace(tenant string) error {
	n := b.cfg.Tenancy.MaxNamespacesPerTenant
	if n <= 0 {
		return nil
	}
	if nss, err := b.pol().Namespaces(tenant); err == nil && len(nss) > n {
		return restErr(http.StatusPreconditionFailed, msgMaxNamespaces, tenant)
	}
	return nil
}

// refuseTopicPolicies is 405 for a topic-level policy call when they are
// disabled (AdminResource.checkTopicLevelPolicyEnable).
func (b *engine) refuseTopicPolicies() error {
	if b.cfg.Tenancy.DisableTopicLevelPolicies {
		return restErr(http.StatusMethodNotAllowed, msgTopicPoliciesDisabled)
	}
	return nil
}

// maxBundles bounds the bundles a namespace may have, so that a request
// cannot make the broker build an unbounded list of boundaries (brokerstub's
// own bound).
const maxBundles = 1024

// Pulsar's refusals, status and text.
const (
	msgNoForceDeleteNamespace = "Broker doesn't allow forced deletion of namespaces"
	msgNoForceDeleteTenant    = "Broker doesn't allow forced deletion of tenants"
	msgMaxTenants             = "Exceed the maximum number of tenants"
	msgMaxNamespaces          = "Exceed the maximum number of namespace in tenant :%s"
	msgTopicPoliciesDisabled  = "Topic level policies is disabled, to enable the topic level policy and retry."
)
