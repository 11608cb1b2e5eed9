package admin

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// A namespace's bundles (Pulsar's BundlesData): set at creation, served by
// GET …/bundles.

// bundles is Pulsar's BundlesData: the boundaries of a namespace's bundles
// in the 32-bit hash space.
type bundles struct {
	Boundaries []string `json:"boundaries"`
	NumBundles int      `json:"numBundles"`
}

// bundlesData is a namespace's bundles as Pulsar's BundlesData: n equal
// ranges of the 32-bit hash space.
func bundlesData(n int) bundles {
	bounds := make([]string, 0, n+1)
	step := uint64(1<<32) / uint64(n)
	for i := range n {
		bounds = append(bounds, fmt.Sprintf("0x%08x", uint64(i)*step))
	}
	bounds = append(bounds, "0xffffffff")
	return bundles{Boundaries: bounds, NumBundles: n}
}

// defaultBundles fills in the bundles of a namespace created without a
// bundles policy, or with only numBundles, as Pulsar's createNamespace.
func (b *Web) defaultBundles(pol map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	n := b.Cfg.DefaultNumberOfNamespaceBundles
	if raw, ok := pol["bundles"]; ok && string(raw) != "null" {
		var bd struct {
			Boundaries []string `json:"boundaries"`
			NumBundles int      `json:"numBundles"`
		}
		if err := json.Unmarshal(raw, &bd); err != nil {
			return nil, engine.RestErr(http.StatusBadRequest, "Invalid bundles: %v", err)
		}
		if len(bd.Boundaries) > engine.MaxBundles+1 {
			return nil, engine.RestErr(http.StatusPreconditionFailed, "Invalid bundles: at most %d bundles", engine.MaxBundles)
		}
		if len(bd.Boundaries) > 0 {
			return pol, nil // kept as given
		}
		if bd.NumBundles > engine.MaxBundles {
			return nil, engine.RestErr(http.StatusPreconditionFailed, "Invalid bundles: numBundles must be at most %d", engine.MaxBundles)
		}
		if bd.NumBundles > 0 {
			n = bd.NumBundles
		}
	}
	raw, err := json.Marshal(bundlesData(n))
	if err != nil {
		return nil, err
	}
	if pol == nil {
		pol = map[string]json.RawMessage{}
	}
	pol["bundles"] = raw
	return pol, nil
}

// getBundles serves GET /admin/v2/namespaces/{tenant}/{ns}/bundles:
// the namespace's BundlesData, as its policies report it.
func getBundles(rq *adminReq) (any, error) {
	_, pol, _, err := rq.namespacePolicies()
	if err != nil {
		return nil, err
	}
	if raw, ok := pol["bundles"]; ok && string(raw) != "null" {
		return raw, nil
	}
	return bundlesData(rq.b.Cfg.DefaultNumberOfNamespaceBundles), nil
}
