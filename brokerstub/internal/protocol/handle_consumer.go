package protocol

import (
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/schema"
	"github.com/pulsargo/sdk/internal/proto"
)

func (c *Conn) handleSubscribe(m *proto.CommandSubscribe) {
	rid := m.GetRequestId()
	name, ok := c.attachableTopic(rid, m.GetTopic())
	if !ok || !c.checkSubscriptionAuthMode(rid, name, m.GetSubscription()) || // subscription_auth_mode.go
		!c.authorizeTopic(rid, name, engine.ActConsume, m.GetSubscription()) || c.refuseMissingNamespace(rid, name) {
		return
	}
	if m.GetSubscription() == "" {
		c.sendError(rid, proto.ServerError_NotAllowedError, "empty subscription name")
		return
	}
	if !m.GetForceTopicCreation() && !c.b.Eng.TopicExists(name) {
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
	t, err := c.b.Eng.TopicForUse(name)
	if err != nil {
		c.sendError(rid, topicErrorCode(err), err.Error())
		return
	}
	if err := t.CheckConsumerSchema(m.GetSchema()); err != nil {
		c.sendError(rid, engine.SchemaError(err), err.Error())
		return
	}
	cs := &engine.Consumer{
		Id: m.GetConsumerId(), Name: m.GetConsumerName(), Peer: c,
		Typ: m.GetSubType(), Priority: m.GetPriorityLevel(), Epoch: m.GetConsumerEpoch(),
		Pending:   map[ledger.Position]engine.PendingEntry{},
		KeyShared: m.GetKeySharedMeta(),
		// AUTO_CONSUME consumers do not make a topic active for schemas.
		AutoConsume: m.GetSchema().GetType() == proto.Schema_Type(schema.AutoConsume),
	}
	// Register first so that messages dispatched right after success find
	// the consumer; undone below if the subscription refuses it.
	c.mu.Lock()
	c.consumers[cs.Id] = cs
	c.mu.Unlock()
	attached := false
	callErr := t.Call(func() {
		if attached = t.Subscribe(cs, m); attached {
			t.NoteConsumer(cs, m)
		}
	})
	if callErr != nil {
		c.sendError(rid, proto.ServerError_ServiceNotReady, callErr.Error())
	}
	if !attached {
		c.mu.Lock()
		delete(c.consumers, cs.Id)
		c.mu.Unlock()
	}
}

func (c *Conn) consumer(id uint64) *engine.Consumer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.consumers[id]
}

func (c *Conn) handleFlow(m *proto.CommandFlow) {
	cs := c.consumer(m.GetConsumerId())
	if cs == nil {
		c.log.Warn("flow for unknown consumer", "consumer", m.GetConsumerId())
		return
	}
	n := int64(m.GetMessagePermits())
	t := cs.Sub.T
	t.Do(func() {
		if cs.Closed {
			return
		}
		cs.Permits += n
		t.NoteFlow(cs)
		cs.Sub.Dispatch()
	})
}

func (c *Conn) handleCloseConsumer(m *proto.CommandCloseConsumer) {
	rid := m.GetRequestId()
	c.mu.Lock()
	cs := c.consumers[m.GetConsumerId()]
	delete(c.consumers, m.GetConsumerId())
	c.mu.Unlock()
	if cs != nil {
		_ = cs.Sub.T.Call(func() { cs.Sub.RemoveConsumer(cs) })
	}
	c.sendSuccess(rid)
}

func (c *Conn) handleUnsubscribe(m *proto.CommandUnsubscribe) {
	rid := m.GetRequestId()
	cs := c.consumer(m.GetConsumerId())
	if cs == nil {
		c.sendError(rid, proto.ServerError_ConsumerNotFound, "consumer not found")
		return
	}
	t := cs.Sub.T
	var code proto.ServerError
	var msg string
	err := t.Call(func() {
		s := cs.Sub
		if len(s.Consumers) > 1 && !m.GetForce() {
			code, msg = proto.ServerError_ConsumerBusy, "subscription "+s.Name+" has other consumers"
			return
		}
		for _, other := range s.Consumers {
			if other != cs {
				other.Closed = true
				other.Peer.Send(engine.CloseConsumerCmd(other.Id))
			}
		}
		s.Consumers = nil
		cs.Closed = true
		delete(t.Subs, s.Name)
		if s.Durable {
			if err := t.B.St.DeleteCursor(t.Name.Full, s.Name); err != nil {
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
		delete(c.consumers, cs.Id)
		c.mu.Unlock()
		c.sendSuccess(rid)
	}
}

func (c *Conn) handleConsumerStats(m *proto.CommandConsumerStats) {
	rid := m.GetRequestId()
	cs := c.consumer(m.GetConsumerId())
	if cs == nil {
		c.write(&proto.BaseCommand{Type: proto.BaseCommand_CONSUMER_STATS_RESPONSE.Enum(), ConsumerStatsResponse: &proto.CommandConsumerStatsResponse{
			RequestId: &rid, ErrorCode: proto.ServerError_ConsumerNotFound.Enum(), ErrorMessage: Strp("consumer not found")}})
		return
	}
	_ = cs.Sub.T.Call(func() {
		permits := uint64(max(cs.Permits, 0))
		unacked := uint64(len(cs.Pending))
		typ := cs.Typ.String()
		c.write(&proto.BaseCommand{Type: proto.BaseCommand_CONSUMER_STATS_RESPONSE.Enum(), ConsumerStatsResponse: &proto.CommandConsumerStatsResponse{
			RequestId: &rid, ConsumerName: &cs.Name, AvailablePermits: &permits, UnackedMessages: &unacked, Type: &typ}})
	})
}

// checkSubscriptionAuthMode refuses a SUBSCRIBE whose subscription name the
// namespace's Prefix mode does not allow to the connection's role, or to
// the original principal a proxy names, with AuthorizationError; it
// reports false when it did.
func (c *Conn) checkSubscriptionAuthMode(rid uint64, name engine.TopicName, sub string) bool {
	role, original := c.roles() // proxy_roles.go
	msg := c.b.Eng.SubscriptionAuthModeRefusal(role, name, sub)
	if msg == "" && original != "" {
		msg = c.b.Eng.SubscriptionAuthModeRefusal(original, name, sub)
	}
	if msg == "" {
		return true
	}
	c.log.Info("authorization refused", "role", role, "topic", name.Full, "subscription", sub, "reason", "subscription auth mode Prefix")
	c.sendError(rid, proto.ServerError_AuthorizationError, msg)
	return false
}
