package engine

import "encoding/json"

// The namespace policy autoTopicCreation (Pulsar's
// autoTopicCreationOverride) over the broker's allowAutoTopicCreation,
// allowAutoTopicCreationType and defaultNumPartitions, as Pulsar's
// BrokerService.isAllowAutoTopicCreation, isDefaultTopicTypePartitioned and
// getDefaultNumPartitions: a namespace that sets the override decides
// alone, whether auto creation is on and, when on, whether a new topic is
// partitioned and with how many partitions. There is no topic-level
// policy of it.

// autoTopicOverride is a stored autoTopicCreationOverride.
type autoTopicOverride struct {
	Allow      bool   `json:"allowAutoTopicCreation"`
	Type       string `json:"topicType"`
	Partitions *int   `json:"defaultNumPartitions"`
}

// autoTopicOverrideOf returns the override of name's namespace, if set.
func (b *Engine) autoTopicOverrideOf(name TopicName) (autoTopicOverride, bool) {
	var o autoTopicOverride
	raw, ok, _ := b.Pol().NamespacePolicy(name.Namespace, "autoTopicCreationOverride")
	if !ok || string(raw) == "null" || json.Unmarshal(raw, &o) != nil {
		return o, false
	}
	return o, true
}

// AutoTopicAllowed reports whether a topic of name that does not exist is
// created on first use. System topics always are, as Pulsar's.
func (b *Engine) AutoTopicAllowed(name TopicName) bool {
	if isSystemTopic(name.Full) {
		return true
	}
	if o, ok := b.autoTopicOverrideOf(name); ok {
		return o.Allow
	}
	return !b.cfg.DisableAutoTopicCreation
}

// autoTopicPartitions is how many partitions an auto-created topic of name
// gets: 0 for a non-partitioned one.
func (b *Engine) autoTopicPartitions(name TopicName) int {
	if o, ok := b.autoTopicOverrideOf(name); ok && o.Allow {
		if o.Type != "partitioned" || o.Partitions == nil {
			return 0
		}
		return max(*o.Partitions, 0)
	}
	return b.cfg.AutoTopicCreationPartitions
}
