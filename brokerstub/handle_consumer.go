package brokerstub

import (
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/schema"
	"github.com/pulsargo/sdk/internal/proto"
)

func (c *conn) handleSubscribe(m *proto.CommandSubscribe) {
	rid := m.GetRequestId()
	name, ok := c.attachableTopic(rid, m.GetTopic())
	if !ok || !c.checkSubscriptionAuthMode(rid, name, m.GetSubscription()) || // subscription_auth_mode.go
		!c.authorizeTopic(rid, name, actConsume, m.GetSubscription()) || c.refuseMissingNamespace(rid, name) {
		return
	}
	if m.GetSubscription() == "" {
		c.sendError(rid, proto.ServerError_NotAllowedError, "empty subscription name")
		return
	}
	if !m.GetForceTopicCreation() && !c.b.eng.topicExists(name) {
		// As ServerCnx: without force_topic_creation only an existing topic
		// (or a partition of a partitioned topic) is subscribed to.
		c.sendError(rid, proto.ServerError_TopicNotFound, "Topic "+name.Full+" does not exist")
		return
	}
	c.mu.Lock()
	_, exists := c.consumers[m.GetConsumerId()]
	c.mu.Unlock()
	if exists {
		// A retried subscribe for a consumer that is attached: succeed again.
		c.sendSuccess(rid)
		return
	}
	t, err := c.b.eng.topicForUse(name)
	if err != nil {
		c.sendError(rid, topicErrorCode(err), err.Error())
		return
	}
	if err := t.checkConsumerSchema(m.GetSchema()); err != nil {
		c.sendError(rid, schemaError(err), err.Error())
		return
	}
	cs := &consumer{
		id: m.GetConsumerId(), name: m.GetConsumerName(), peer: c,
		typ: m.GetSubType(), priority: m.GetPriorityLevel(), epoch: m.GetConsumerEpoch(),
		pending:   map[ledger.Position]pendingEntry{},
		keyShared: m.GetKeySharedMeta(),
		// AUTO_CONSUME consumers do not make a topic active for schemas.
		autoConsume: m.GetSchema().GetType() == proto.Schema_Type(schema.AutoConsume),
	}
	// Register first so that messages dispatched right after success find
	// the consumer; undone below if the subscription refuses it.
	c.mu.Lock()
	c.consumers[cs.id] = cs
	c.mu.Unlock()
	attached := false
	callErr := t.call(func() {
		if attached = t.subscribe(cs, m); attached {
			t.noteConsumer(cs, m)
		}
	})
	if callErr != nil {
		c.sendError(rid, proto.ServerError_ServiceNotReady, callErr.Error())
	}
	if !attached {
		c.mu.Lock()
		delete(c.consumers, cs.id)
		c.mu.Unlock()
	}
}

func (c *conn) consumer(id uint64) *consumer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.consumers[id]
}

func (c *conn) handleFlow(m *proto.CommandFlow) {
	cs := c.consumer(m.GetConsumerId())
	if cs == nil {
		c.log.Warn("flow for unknown consumer", "consumer", m.GetConsumerId())
		return
	}
	n := int64(m.GetMessagePermits())
	t := cs.sub.t
	t.do(func() {
		if cs.closed {
			return
		}
		cs.permits += n
		t.noteFlow(cs)
		cs.sub.dispatch()
	})
}

func (c *conn) handleCloseConsumer(m *proto.CommandCloseConsumer) {
	rid := m.GetRequestId()
	c.mu.Lock()
	cs := c.consumers[m.GetConsumerId()]
	delete(c.consumers, m.GetConsumerId())
	c.mu.Unlock()
	if cs != nil {
		_ = cs.sub.t.call(func() { cs.sub.removeConsumer(cs) })
	}
	c.sendSuccess(rid)
}

func (c *conn) handleUnsubscribe(m *proto.CommandUnsubscribe) {
	rid := m.GetRequestId()
	cs := c.consumer(m.GetConsumerId())
	if cs == nil {
		c.sendError(rid, proto.ServerError_ConsumerNotFound, "consumer not found")
		return
	}
	t := cs.sub.t
	var code proto.ServerError
	var msg string
	err := t.call(func() {
		s := cs.sub
		if len(s.consumers) > 1 && !m.GetForce() {
			code, msg = proto.ServerError_ConsumerBusy, "subscription "+s.name+" has other consumers"
			return
		}
		for _, other := range s.consumers {
			if other != cs {
				other.closed = true
				other.peer.send(closeConsumerCmd(other.id))
			}
		}
		s.consumers = nil
		cs.closed = true
		delete(t.subs, s.name)
		if s.durable {
			if err := t.b.st.DeleteCursor(t.name.Full, s.name); err != nil {
				code, msg = proto.ServerError_PersistenceError, err.Error()
			}
		}
	})
	switch {
	case err != nil:
		c.sendError(rid, proto.ServerError_ServiceNotReady, err.Error())
	case msg != "":
		c.sendError(rid, code, msg)
	default:
		c.mu.Lock()
		delete(c.consumers, cs.id)
		c.mu.Unlock()
		c.sendSuccess(rid)
	}
}

func (c *conn) handleConsumerStats(m *proto.CommandConsumerStats) {
	rid := m.GetRequestId()
	cs := c.consumer(m.GetConsumerId())
	if cs == nil {
		c.write(&proto.BaseCommand{Type: proto.BaseCommand_CONSUMER_STATS_RESPONSE.Enum(), ConsumerStatsResponse: &proto.CommandConsumerStatsResponse{
			RequestId: &rid, ErrorCode: proto.ServerError_ConsumerNotFound.Enum(), ErrorMessage: strp("consumer not found")}})
		return
	}
	_ = cs.sub.t.call(func() {
		permits := uint64(max(cs.permits, 0))
		unacked := uint64(len(cs.pending))
		typ := cs.typ.String()
		c.write(&proto.BaseCommand{Type: proto.BaseCommand_CONSUMER_STATS_RESPONSE.Enum(), ConsumerStatsResponse: &proto.CommandConsumerStatsResponse{
			RequestId: &rid, ConsumerName: &cs.name, AvailablePermits: &permits, UnackedMessages: &unacked, Type: &typ}})
	})
}

// checkSubscriptionAuthMode refuses a SUBSCRIBE whose subscription name the
// namespace's Prefix mode does not allow to the connection's role, or to
// the original principal a proxy names, with AuthorizationError; it
// reports false when it did.
func (c *conn) checkSubscriptionAuthMode(rid uint64, name topicName, sub string) bool {
	role, original := c.roles() // proxy_roles.go
	msg := c.b.eng.subscriptionAuthModeRefusal(role, name, sub)
	if msg == "" && original != "" {
		msg = c.b.eng.subscriptionAuthModeRefusal(original, name, sub)
	}
	if msg == "" {
		return true
	}
	c.log.Info("authorization refused", "role", role, "topic", name.Full, "subscription", sub, "reason", "subscription auth mode Prefix")
	c.sendError(rid, proto.ServerError_AuthorizationError, msg)
	return false
}
