package protocol

import (
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/internal/proto"
)

// authorizeNamespaceTopics answers a refused topic listing of namespace ns
// with AuthorizationError and msg, and reports false.
func (c *Conn) authorizeNamespaceTopics(rid uint64, ns, msg string) bool {
	if c.allowedAs(func(r string) bool { return c.b.Eng.AllowNamespaceTopics(r, ns) }) {
		return true
	}
	c.log.Info("authorization refused", "role", c.Role(), "namespace", ns, "action", "GetTopics")
	c.sendError(rid, proto.ServerError_AuthorizationError, msg)
	return false
}

// authorizeTopic answers a refused LOOKUP, PRODUCER or SUBSCRIBE with
// AuthorizationError and reports false.
func (c *Conn) authorizeTopic(rid uint64, name engine.TopicName, act engine.AuthzAction, sub string) bool {
	role := c.Role()
	if c.allowedAs(func(r string) bool { return c.b.Eng.AllowTopic(r, name, act, sub) }) { // proxy_roles.go
		return true
	}
	what := map[engine.AuthzAction]string{engine.ActLookup: "Lookup", engine.ActProduce: "Produce", engine.ActConsume: "Consume"}[act]
	c.log.Info("authorization refused", "role", role, "topic", name.Full, "action", what)
	c.sendError(rid, proto.ServerError_AuthorizationError, "Client is not authorized to "+what)
	return false
}

// lookupRefusal returns the message of a refused lookup, "" when role may
// look name up.
func (c *Conn) lookupRefusal(name engine.TopicName) string {
	if c.allowedAs(func(r string) bool { return c.b.Eng.AllowTopic(r, name, engine.ActLookup, "") }) {
		return ""
	}
	c.log.Info("authorization refused", "role", c.Role(), "topic", name.Full, "action", "Lookup")
	return "Client is not authorized to Lookup"
}
