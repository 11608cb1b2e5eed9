package brokerstub

import (
	"fmt"
	"net/http"
)

// hasClients reports whether the loaded topic has producers or consumers.
func (t *topic) hasClients() bool {
	busy := false
	_ = t.call(func() {
		busy = len(t.producers) > 0
		for _, s := range t.subs {
			busy = busy || len(s.consumers) > 0
		}
	})
	return busy
}

// deleteTopic deletes a topic's entries and cursors. With producers or
// consumers attached it is refused (412) unless force: then they are closed
// first, as Pulsar does.
func (b *engine) deleteTopic(name topicName, force bool) error {
	b.mu.Lock()
	t := b.topics[name.Full]
	stored := b.storedLocked(name)
	b.mu.Unlock()
	if t == nil && !stored {
		return fmt.Errorf("%w: %s", errTopicNotFound, name.Full)
	}
	if t != nil && !force && t.hasClients() {
		return restErr(http.StatusPreconditionFailed, "Topic has active producers/subscriptions")
	}
	// b.mu is held until the data is gone, so that a client reconnecting
	// meanwhile waits and then finds a new, empty topic. Topic goroutines
	// never take b.mu, so stopping one under it cannot deadlock.
	b.mu.Lock()
	defer b.mu.Unlock()
	if t = b.topics[name.Full]; t != nil {
		delete(b.topics, name.Full)
		_ = t.call(t.closeClients)
		t.stop(false)
	}
	if err := b.st.DeleteTopic(name.Full); err != nil {
		return err
	}
	if err := b.forgetTopicGrants(name); err != nil {
		return err
	}
	return b.pol().ForgetTopic(name.Full)
}
