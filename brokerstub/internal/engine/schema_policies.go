package engine

import (
	"encoding/json"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/schema"
)

// The schema policies of the admin API, read by the schema registry at each
// check (SetLookup in newSchemaRegistry): a topic's
// schemaCompatibilityStrategy and schemaValidationEnforced, else its
// namespace's schema_compatibility_strategy (or, when that is UNDEFINED,
// the older schema_auto_update_compatibility_strategy),
// schema_validation_enforced and is_allow_auto_update_schema, else the
// broker's keys, as Pulsar's AbstractTopic resolves them.

// schemaPolicy returns the schema policy of a namespace ("tenant/ns") or a
// topic ("tenant/ns/topic", a schema id) from the stored policies.
func (b *Engine) schemaPolicy(scope string) (schema.Policy, bool) {
	if strings.Count(scope, "/") == 1 {
		return b.namespaceSchemaPolicy(scope)
	}
	var p schema.Policy
	pol := b.Pol()
	for _, domain := range []string{"persistent://", "non-persistent://"} {
		if raw, ok := pol.TopicPolicy(domain+scope, "schemaCompatibilityStrategy"); ok && p.Strategy == schema.Undefined {
			p.Strategy = strategyOf(raw)
		}
		if raw, ok := pol.TopicPolicy(domain+scope, "schemaValidationEnforced"); ok && p.ValidationEnforced == nil {
			p.ValidationEnforced = boolOf(raw)
		}
	}
	return p, p != (schema.Policy{})
}

func (b *Engine) namespaceSchemaPolicy(ns string) (schema.Policy, bool) {
	var p schema.Policy
	pol := b.Pol()
	if raw, ok, _ := pol.NamespacePolicy(ns, "schema_compatibility_strategy"); ok {
		p.Strategy = strategyOf(raw)
	}
	if p.Strategy == schema.Undefined {
		if raw, ok, _ := pol.NamespacePolicy(ns, "schema_auto_update_compatibility_strategy"); ok {
			p.Strategy = autoUpdateStrategyOf(raw)
		}
	}
	if raw, ok, _ := pol.NamespacePolicy(ns, "schema_validation_enforced"); ok {
		p.ValidationEnforced = boolOf(raw)
	}
	if raw, ok, _ := pol.NamespacePolicy(ns, "is_allow_auto_update_schema"); ok {
		p.AutoUpdate = boolOf(raw)
	}
	return p, p != (schema.Policy{})
}

// strategyOf decodes a stored SchemaCompatibilityStrategy ("BACKWARD");
// anything else is Undefined, which inherits.
func strategyOf(raw json.RawMessage) schema.Strategy {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return schema.Undefined
	}
	st, err := schema.ParseStrategy(s)
	if err != nil {
		return schema.Undefined
	}
	return st
}

// autoUpdateStrategyOf maps the older SchemaAutoUpdateCompatibilityStrategy
// ("Backward", "AutoUpdateDisabled", ...) as Pulsar's
// SchemaCompatibilityStrategy.fromAutoUpdatePolicy: the same names, and
// AutoUpdateDisabled is ALWAYS_INCOMPATIBLE.
func autoUpdateStrategyOf(raw json.RawMessage) schema.Strategy {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return schema.Undefined
	}
	switch s {
	case "AutoUpdateDisabled":
		return schema.AlwaysIncompatible
	case "AlwaysCompatible":
		return schema.AlwaysCompatible
	case "Backward":
		return schema.Backward
	case "Forward":
		return schema.Forward
	case "Full":
		return schema.Full
	case "BackwardTransitive":
		return schema.BackwardTransitive
	case "ForwardTransitive":
		return schema.ForwardTransitive
	case "FullTransitive":
		return schema.FullTransitive
	}
	return schema.Undefined
}

// boolOf decodes a stored boolean policy; null or anything else is unset.
func boolOf(raw json.RawMessage) *bool {
	var v *bool
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

// NamespacePolicyField is the stored field of a namespace policy resource:
// those of namespacePolicyFields and schemaAutoUpdateCompatibilityStrategy,
// the older resource of the namespace's schema strategy.
func NamespacePolicyField(resource string) (string, bool) {
	if resource == "schemaAutoUpdateCompatibilityStrategy" {
		return "schema_auto_update_compatibility_strategy", true
	}
	f, ok := NamespacePolicyFields[resource]
	return f, ok
}
