package protocol

import (
	"math"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// serverVersion is what the stub reports in CommandConnected.
const serverVersion = "pulsargo-brokerstub"

// maxProtocolVersion is the highest protocol version the stub speaks.
const maxProtocolVersion = int32(proto.ProtocolVersion_v20)

// Handle runs one inbound command; it reports false when the connection
// must close. Handlers live in files by command group: this file (connect,
// ping), handle_lookup.go (lookup, partitioned metadata, topics of a
// namespace), handle_schema.go, handle_producer.go (producer, send, close
// producer), handle_consumer.go (subscribe, flow, close consumer,
// unsubscribe, stats), handle_ack.go (ack, redeliver), handle_seek.go
// (seek, last message id), handle_topiclist.go (topic-list watchers) and
// txn_handlers.go (the transaction coordinator).
func (c *Conn) Handle(f *wire.Frame) bool {
	cmd := f.Cmd
	t := cmd.GetType()
	if !c.Connected && t != proto.BaseCommand_CONNECT {
		c.log.Warn("command before CONNECT", "type", t)
		return false
	}
	switch t {
	case proto.BaseCommand_CONNECT:
		return c.handleConnect(cmd.GetConnect())
	case proto.BaseCommand_PING:
		c.write(&proto.BaseCommand{Type: proto.BaseCommand_PONG.Enum(), Pong: &proto.CommandPong{}})
	case proto.BaseCommand_PONG:
	case proto.BaseCommand_AUTH_RESPONSE:
		return c.handleAuthResponse(cmd.GetAuthResponse())
	case proto.BaseCommand_LOOKUP:
		c.handleLookup(cmd.GetLookupTopic())
	case proto.BaseCommand_PARTITIONED_METADATA:
		c.handlePartitionedMetadata(cmd.GetPartitionMetadata())
	case proto.BaseCommand_GET_TOPICS_OF_NAMESPACE:
		c.handleTopicsOfNamespace(cmd.GetGetTopicsOfNamespace())
	case proto.BaseCommand_GET_SCHEMA:
		c.handleGetSchema(cmd.GetGetSchema())
	case proto.BaseCommand_GET_OR_CREATE_SCHEMA:
		c.handleGetOrCreateSchema(cmd.GetGetOrCreateSchema())
	case proto.BaseCommand_PRODUCER:
		c.handleProducer(cmd.GetProducer())
	case proto.BaseCommand_SEND:
		return c.handleSend(cmd.GetSend(), f)
	case proto.BaseCommand_CLOSE_PRODUCER:
		c.handleCloseProducer(cmd.GetCloseProducer())
	case proto.BaseCommand_SUBSCRIBE:
		c.handleSubscribe(cmd.GetSubscribe())
	case proto.BaseCommand_FLOW:
		c.handleFlow(cmd.GetFlow())
	case proto.BaseCommand_ACK:
		c.handleAck(cmd.GetAck())
	case proto.BaseCommand_REDELIVER_UNACKNOWLEDGED_MESSAGES:
		c.handleRedeliver(cmd.GetRedeliverUnacknowledgedMessages())
	case proto.BaseCommand_SEEK:
		c.handleSeek(cmd.GetSeek())
	case proto.BaseCommand_GET_LAST_MESSAGE_ID:
		c.handleGetLastMessageID(cmd.GetGetLastMessageId())
	case proto.BaseCommand_UNSUBSCRIBE:
		c.handleUnsubscribe(cmd.GetUnsubscribe())
	case proto.BaseCommand_CLOSE_CONSUMER:
		c.handleCloseConsumer(cmd.GetCloseConsumer())
	case proto.BaseCommand_CONSUMER_STATS:
		c.handleConsumerStats(cmd.GetConsumerStats())
	case proto.BaseCommand_WATCH_TOPIC_LIST:
		c.b.watchTopicList(c, cmd.GetWatchTopicList())
	case proto.BaseCommand_WATCH_TOPIC_LIST_CLOSE:
		c.handleWatchTopicListClose(cmd.GetWatchTopicListClose())
	default:
		if c.handleTxnCommand(cmd) { // txn_handlers.go
			break
		}
		c.replyError(cmd, proto.ServerError_NotAllowedError, "brokerstub does not support "+t.String())
	}
	return true
}

func (c *Conn) handleConnect(m *proto.CommandConnect) bool {
	if c.Connected {
		c.log.Warn("second CONNECT on a connection")
		return false
	}
	if auth := c.b.Cfg.Authenticate; auth != nil {
		if err := auth(m.GetAuthMethodName(), m.GetAuthData()); err != nil {
			c.log.Info("authentication refused", "method", m.GetAuthMethodName(), "err", err)
			c.refuseAuth(err.Error())
			return true // the connection closes once the error is written
		}
	}
	if !c.authenticateConnect(m) {
		return true // as above
	}
	c.Connected = true
	c.clientVersion = m.GetClientVersion()
	c.Gate.partialProducer = m.GetFeatureFlags().GetSupportsPartialProducer() // admin_stats_publishers.go
	c.protocolVersion = min(m.GetProtocolVersion(), maxProtocolVersion)
	maxSize := int32(min(c.b.Cfg.MaxMessageSize, math.MaxInt32-wire.FramePadding))
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_CONNECTED.Enum(), Connected: &proto.CommandConnected{
		ServerVersion:   Strp(serverVersion),
		ProtocolVersion: &c.protocolVersion,
		MaxMessageSize:  &maxSize,
		// As Pulsar with enableBrokerSideSubscriptionPatternEvaluation (default on).
		FeatureFlags: &proto.FeatureFlags{SupportsTopicWatchers: boolp(true)},
	}})
	c.log.Debug("connected", "client", m.GetClientVersion(), "protocol", c.protocolVersion)
	return true
}
