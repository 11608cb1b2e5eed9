package engine

import "net/http"

// RefuseForceDeleteNamespace is Pulsar's answer to ?force=true on a
// namespace when the broker does not allow it.
func (b *Engine) RefuseForceDeleteNamespace(force bool) error {
	if force && !b.cfg.Tenancy.ForceDeleteNamespaceAllowed {
		return RestErr(http.StatusMethodNotAllowed, MsgNoForceDeleteNamespace)
	}
	return nil
}

// RefuseForceDeleteTenant is Pulsar's answer to ?force=true on a tenant
// when the broker does not allow it (TenantsBase).
func (b *Engine) RefuseForceDeleteTenant(force bool) error {
	if force && !b.cfg.Tenancy.ForceDeleteTenantAllowed {
		return RestErr(http.StatusMethodNotAllowed, MsgNoForceDeleteTenant)
	}
	return nil
}

// RefuseNewTenant is 412 when the broker has MaxTenants tenants.
func (b *Engine) RefuseNewTenant() error {
	if n := b.cfg.Tenancy.MaxTenants; n > 0 && len(b.Pol().Tenants()) >= n {
		return RestErr(http.StatusPreconditionFailed, MsgMaxTenants)
	}
	return nil
}

// RefuseNewNamespace is 412 when the tenant has more than
// MaxNamespacesPerTenant namespaces (Pulsar's comparison).
func (b *Engine) RefuseNewNamespace(tenant string) error {
	n := b.cfg.Tenancy.MaxNamespacesPerTenant
	if n <= 0 {
		return nil
	}
	if nss, err := b.Pol().Namespaces(tenant); err == nil && len(nss) > n {
		return RestErr(http.StatusPreconditionFailed, msgMaxNamespaces, tenant)
	}
	return nil
}

// RefuseTopicPolicies is 405 for a topic-level policy call when they are
// disabled (AdminResource.checkTopicLevelPolicyEnable).
func (b *Engine) RefuseTopicPolicies() error {
	if b.cfg.Tenancy.DisableTopicLevelPolicies {
		return RestErr(http.StatusMethodNotAllowed, MsgTopicPoliciesDisabled)
	}
	return nil
}

// MaxBundles bounds the bundles a namespace may have, so that a request
// cannot make the broker build an unbounded list of boundaries (brokerstub's
// own bound).
const MaxBundles = 1024

// Pulsar's refusals, status and text.
const (
	MsgNoForceDeleteNamespace = "Broker doesn't allow forced deletion of namespaces"
	MsgNoForceDeleteTenant    = "Broker doesn't allow forced deletion of tenants"
	MsgMaxTenants             = "Exceed the maximum number of tenants"
	msgMaxNamespaces          = "Exceed the maximum number of namespace in tenant :%s"
	MsgTopicPoliciesDisabled  = "Topic level policies is disabled, to enable the topic level policy and retry."
)
