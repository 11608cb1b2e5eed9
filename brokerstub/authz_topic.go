package brokerstub

import (
	"encoding/json"
	"slices"
	"sort"
)

// destinationAuthField holds a namespace's topic-level permissions
// (Pulsar's auth_policies.destination_auth: topic -> role -> actions), in
// the namespace's policies as Pulsar keeps them.
const destinationAuthField = "destination_auth"

// topicGrants is a namespace's destination_auth.
type topicGrants map[string]map[string][]string

// topicGrantsOf returns the topic-level permissions of namespace ns (empty
// when it has none or does not exist).
func (b *engine) topicGrantsOf(ns string) topicGrants {
	g := topicGrants{}
	raw, ok, err := b.pol().NamespacePolicy(ns, destinationAuthField)
	if err != nil || !ok {
		return g
	}
	if json.Unmarshal(raw, &g) != nil {
		return topicGrants{}
	}
	return g
}

// updateTopicGrants applies f to the namespace's topic-level permissions
// atomically (two grants at once both stay); an error of f changes
// nothing.
func (b *engine) updateTopicGrants(ns string, f func(topicGrants) error) error {
	return b.pol().UpdateNamespacePolicy(ns, destinationAuthField, func(raw json.RawMessage) (json.RawMessage, error) {
		g := topicGrants{}
		if raw != nil && json.Unmarshal(raw, &g) != nil {
			g = topicGrants{}
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

// forgetTopicGrants drops the topic-level permissions of a deleted topic,
// as Pulsar does when it deletes a topic, so that a topic created again
// under the name starts with none.
func (b *engine) forgetTopicGrants(name topicName) error {
	if _, ok := b.topicGrantsOf(name.Namespace)[name.Full]; !ok {
		return nil
	}
	return b.updateTopicGrants(name.Namespace, func(g topicGrants) error {
		delete(g, name.Full)
		return nil
	})
}

// grant gives role the actions on topic (its full name), replacing
// what the role had there.
func (g topicGrants) grant(topic, role string, actions []string) {
	if g[topic] == nil {
		g[topic] = map[string][]string{}
	}
	a := slices.Clone(actions)
	sort.Strings(a)
	g[topic][role] = slices.Compact(a)
}

// revoke removes role from topic; it reports false when the role had no
// topic-level permission there.
func (g topicGrants) revoke(topic, role string) bool {
	if _, ok := g[topic][role]; !ok {
		return false
	}
	delete(g[topic], role)
	if len(g[topic]) == 0 {
		delete(g, topic)
	}
	return true
}
