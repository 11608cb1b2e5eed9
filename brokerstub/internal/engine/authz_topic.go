package engine

import (
	"encoding/json"
	"slices"
	"sort"
)

// DestinationAuthField holds a namespace's topic-level permissions
// (Pulsar's auth_policies.destination_auth: topic -> role -> actions), in
// the namespace's policies as Pulsar keeps them.
const DestinationAuthField = "destination_auth"

// TopicGrants is a namespace's destination_auth.
type TopicGrants map[string]map[string][]string

// TopicGrantsOf returns the topic-level permissions of namespace ns (empty
// when it has none or does not exist).
func (b *Engine) TopicGrantsOf(ns string) TopicGrants {
	g := TopicGrants{}
	raw, ok, err := b.Pol().NamespacePolicy(ns, DestinationAuthField)
	if err != nil || !ok {
		return g
	}
	if json.Unmarshal(raw, &g) != nil {
		return TopicGrants{}
	}
	return g
}

// UpdateTopicGrants applies f to the namespace's topic-level permissions
// atomically (two grants at once both stay); an error of f changes
// nothing.
func (b *Engine) UpdateTopicGrants(ns string, f func(TopicGrants) error) error {
	return b.Pol().UpdateNamespacePolicy(ns, DestinationAuthField, func(raw json.RawMessage) (json.RawMessage, error) {
		g := TopicGrants{}
		if raw != nil && json.Unmarshal(raw, &g) != nil {
			g = TopicGrants{}
		}
		if err := f(g); err != nil {
			return nil, err
		}
		if len(g) == 0 {
			return nil, nil
		}
		return json.Marshal(g)
	})
}

// ForgetTopicGrants drops the topic-level permissions of a deleted topic,
// as Pulsar does when it deletes a topic, so that a topic created again
// under the name starts with none.
func (b *Engine) ForgetTopicGrants(name TopicName) error {
	if _, ok := b.TopicGrantsOf(name.Namespace)[name.Full]; !ok {
		return nil
	}
	return b.UpdateTopicGrants(name.Namespace, func(g TopicGrants) error {
		delete(g, name.Full)
		return nil
	})
}

// Grant gives role the actions on topic (its full name), replacing
// what the role had there.
func (g TopicGrants) Grant(topic, role string, actions []string) {
	if g[topic] == nil {
		g[topic] = map[string][]string{}
	}
	a := slices.Clone(actions)
	sort.Strings(a)
	g[topic][role] = slices.Compact(a)
}

// Revoke removes role from topic; it reports false when the role had no
// topic-level permission there.
func (g TopicGrants) Revoke(topic, role string) bool {
	if _, ok := g[topic][role]; !ok {
		return false
	}
	delete(g[topic], role)
	if len(g[topic]) == 0 {
		delete(g, topic)
	}
	return true
}
