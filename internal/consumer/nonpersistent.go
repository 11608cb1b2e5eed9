package consumer

import (
	"strings"

	"github.com/pulsargo/sdk/messageid"
)

// nonPersistent reports whether the engine's topic is a non-persistent
// one. The broker keeps nothing there and gives every message the id 0:0,
// so what the engine does by position — tracking for acks, filtering
// after a seek — cannot tell messages apart; and acks and seeks change
// nothing on the broker.
func (e *Engine[T]) nonPersistent() bool {
	return strings.HasPrefix(e.o.Topic, "non-persistent://")
}

// passes is the filter's pass (start and seek points, messages handed out
// before a resubscription), which lets everything through on a
// non-persistent topic: a point there is 0:0, as every later message.
func (e *Engine[T]) passes(id messageid.MessageID, publishTime uint64) bool {
	return e.nonPersistent() || e.filter.pass(id, publishTime)
}

// precedes is the filter's before, false on a non-persistent topic.
func (e *Engine[T]) precedes(id messageid.ID, publishTime uint64) bool {
	return !e.nonPersistent() && e.filter.before(id, publishTime)
}
