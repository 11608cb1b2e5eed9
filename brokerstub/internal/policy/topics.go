package policy

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Topic-level policies and flags, and the dynamic broker configuration.

// TopicPolicy returns one topic-level policy and whether it is set.
func (s *State) TopicPolicy(topic, field string) (json.RawMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.d.Topics[topic]
	if !ok {
		return nil, false
	}
	v, ok := t.Policies[field]
	return slices.Clone(v), ok
}

// SetTopicPolicy sets (val != nil) or removes one topic-level policy.
func (s *State) SetTopicPolicy(topic, field string, val json.RawMessage) error {
	return s.update(func() error {
		t := s.topicLocked(topic)
		if val == nil {
			delete(t.Policies, field)
		} else {
			t.Policies[field] = slices.Clone(val)
		}
		return nil
	})
}

func (s *State) topicLocked(topic string) *Topic {
	t, ok := s.d.Topics[topic]
	if !ok {
		t = &Topic{}
		s.d.Topics[topic] = t
	}
	if t.Policies == nil {
		t.Policies = map[string]json.RawMessage{}
	}
	return t
}

// Terminated reports whether the topic was terminated.
func (s *State) Terminated(topic string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.d.Topics[topic]
	return ok && t.Terminated
}

// SetTerminated marks the topic terminated.
func (s *State) SetTerminated(topic string) error {
	return s.update(func() error {
		s.topicLocked(topic).Terminated = true
		return nil
	})
}

// ForgetTopic drops what is kept about a deleted topic.
func (s *State) ForgetTopic(topic string) error {
	return s.update(func() error {
		delete(s.d.Topics, topic)
		return nil
	})
}

// DynamicConfig returns a copy of the dynamic configuration values set.
func (s *State) DynamicConfig() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.d.Dynamic))
	for k, v := range s.d.Dynamic {
		out[k] = v
	}
	return out
}

// SetDynamicConfig sets (val != nil) or removes one dynamic configuration
// value; removing one that is not set is ErrNotFound.
func (s *State) SetDynamicConfig(name string, val *string) error {
	return s.update(func() error {
		if s.d.Dynamic == nil {
			s.d.Dynamic = map[string]string{}
		}
		if val == nil {
			if _, ok := s.d.Dynamic[name]; !ok {
				return fmt.Errorf("%w: %s is not set", ErrNotFound, name)
			}
			delete(s.d.Dynamic, name)
			return nil
		}
		s.d.Dynamic[name] = *val
		return nil
	})
}
