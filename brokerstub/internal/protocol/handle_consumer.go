package protocol

import (
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
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
	cs := engine.NewConsumer(c, m)
	// Register first so that messages dispatched right after success find
	// the consumer; undone below if the subscription refuses it.
	c.mu.Lock()
	c.consumers[cs.ID()] = cs
	c.mu.Unlock()
	attached, callErr := t.AttachConsumer(cs, m)
	if callErr != nil {
		c.sendError(rid, proto.ServerError_ServiceNotReady, callErr.Error())
	}
	if !attached {
		c.mu.Lock()
		delete(c.consumers, cs.ID())
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
	cs.AddPermits(int64(m.GetMessagePermits()))
}

func (c *Conn) handleCloseConsumer(m *proto.CommandCloseConsumer) {
	rid := m.GetRequestId()
	c.mu.Lock()
	cs := c.consumers[m.GetConsumerId()]
	delete(c.consumers, m.GetConsumerId())
	c.mu.Unlock()
	if cs != nil {
		cs.Close()
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
	code, msg, err := cs.Unsubscribe(m.GetForce())
	switch {
	case err != nil:
		c.sendError(rid, proto.ServerError_ServiceNotReady, err.Error())
	case msg != "":
		c.sendError(rid, code, msg)
	default:
		c.mu.Lock()
		delete(c.consumers, cs.ID())
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
	cs.AnswerStats(rid)
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
