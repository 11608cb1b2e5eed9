package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/policy"
)

// A topic lives in a namespace, and a namespace must exist before its topics
// are used, as on Pulsar: the broker finds no policies for a missing
// namespace and refuses lookups, producers and consumers there. The texts
// and codes below are a Pulsar 4.x broker's.
const (
	// NsNotFoundReason is the RestException of PulsarWebResource's
	// checkLocalOrGetPeerReplicationCluster: 404 on HTTP lookups, and the
	// reason partitioned-metadata requests give with TopicNotFound.
	NsNotFoundReason = "Namespace not found"
	// NsNotFoundLookup is what a binary LOOKUP answers (MetadataError): the
	// same exception's text as TopicLookupBase passes it on.
	NsNotFoundLookup = "org.apache.pulsar.broker.web.RestException: " + NsNotFoundReason
)

// NamespaceReady reports whether the topic's namespace exists. With
// Options.AutoCreateNamespaces a missing namespace (and its tenant) is
// created here, on first use.
func (b *Engine) NamespaceReady(name TopicName) bool {
	pol := b.Pol()
	if pol.HasNamespace(name.Namespace) {
		return true
	}
	if !b.cfg.AutoCreateNamespaces {
		return false
	}
	if err := b.CreateNamespace(name.Namespace); err != nil {
		b.log.Warn("create namespace on first use", "namespace", name.Namespace, "err", err)
		return false
	}
	b.log.Info("namespace created on first use", "namespace", name.Namespace)
	return true
}

// CreateNamespace is Broker.CreateNamespace.
func (b *Engine) CreateNamespace(namespace string) error {
	tenant, ns, ok := strings.Cut(namespace, "/")
	if !ok || !ValidName(tenant) || !ValidName(ns) {
		return fmt.Errorf("brokerstub: namespace %q: want tenant/namespace", namespace)
	}
	pol := b.Pol()
	err := pol.CreateTenant(tenant, policy.Tenant{AllowedClusters: []string{b.cfg.ClusterName}})
	if err != nil && !errors.Is(err, policy.ErrExists) {
		return fmt.Errorf("brokerstub: create tenant %s: %w", tenant, err)
	}
	if err := pol.CreateNamespace(namespace, nil); err != nil && !errors.Is(err, policy.ErrExists) {
		return fmt.Errorf("brokerstub: create namespace %s: %w", namespace, err)
	}
	return nil
}
