package engine

import (
	"fmt"
	"net/http"
)

// HasClients reports whether the loaded topic has producers or consumers.
func (t *Topic) HasClients() bool {
	busy := false
	_ = t.Call(func() {
		busy = len(t.producers) > 0
		for _, s := range t.Subs {
			busy = busy || len(s.Consumers) > 0
		}
	})
	return busy
}

// DeleteTopic deletes a topic's entries and cursors. With producers or
// consumers attached it is refused (412) unless force: then they are closed
// first, as Pulsar does.
func (b *Engine) DeleteTopic(name TopicName, force bool) error {
	b.mu.Lock()
	t := b.topics[name.Full]
	stored := b.storedLocked(name)
	b.mu.Unlock()
	if t == nil && !stored {
		return fmt.Errorf("%w: %s", ErrTopicNotFound, name.Full)
	}
	if t != nil && !force && t.HasClients() {
		return RestErr(http.StatusPreconditionFailed, "Topic has active producers/subscriptions")
	}
	// b.mu is held until the data is gone, so that a client reconnecting
	// meanwhile waits and then finds a new, empty topic. Topic goroutines
	// never take b.mu, so stopping one under it cannot deadlock.
	b.mu.Lock()
	defer b.mu.Unlock()
	if t = b.topics[name.Full]; t != nil {
		delete(b.topics, name.Full)
		_ = t.Call(t.closeClients)
		t.stop(false)
	}
	if err := b.st.DeleteTopic(name.Full); err != nil {
		return err
	}
	if err := b.ForgetTopicGrants(name); err != nil {
		return err
	}
	return b.Pol().ForgetTopic(name.Full)
}
