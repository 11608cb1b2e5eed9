package protocol

import (
	"errors"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/internal/proto"
)

// handleLookup answers every lookup with this broker, authoritatively: the
// stub owns every topic. A topic of a missing namespace is refused with
// MetadataError, as Pulsar's TopicLookupBase does (namespace_check.go).
func (c *Conn) handleLookup(m *proto.CommandLookupTopic) {
	rid := m.GetRequestId()
	resp := &proto.CommandLookupTopicResponse{RequestId: &rid}
	name, err := engine.ParseTopic(m.GetTopic())
	if err == nil {
		release, ok := c.b.acquireLookup() // lookup_limits.go
		if !ok {
			c.refuseLookup(rid)
			return
		}
		defer release()
	}
	switch {
	case err != nil:
		resp.Response = proto.CommandLookupTopicResponse_Failed.Enum()
		resp.Error = proto.ServerError_InvalidTopicName.Enum()
		resp.Message = Strp(err.Error())
	case c.lookupRefusal(name) != "":
		resp.Response = proto.CommandLookupTopicResponse_Failed.Enum()
		resp.Error = proto.ServerError_AuthorizationError.Enum()
		resp.Message = Strp("Client is not authorized to Lookup")
	case !c.b.Eng.NamespaceReady(name):
		resp.Response = proto.CommandLookupTopicResponse_Failed.Enum()
		resp.Error = proto.ServerError_MetadataError.Enum()
		resp.Message = Strp(engine.NsNotFoundLookup)
	case !c.b.Eng.TopicExists(name) && !c.b.Eng.AutoTopicAllowed(name):
		resp.Response = proto.CommandLookupTopicResponse_Failed.Enum()
		resp.Error = proto.ServerError_TopicNotFound.Enum()
		resp.Message = Strp("topic " + name.Full + " does not exist")
	default:
		listener := m.GetAdvertisedListenerName()
		if strings.TrimSpace(listener) == "" {
			listener = c.listener
		}
		plain, secure, err := c.b.Hooks.LookupURLs(listener) // listeners.go
		if err != nil {
			resp.Response = proto.CommandLookupTopicResponse_Failed.Enum()
			resp.Error = proto.ServerError_ServiceNotReady.Enum()
			resp.Message = Strp(err.Error())
			break
		}
		resp.Response = proto.CommandLookupTopicResponse_Connect.Enum()
		if plain != "" {
			resp.BrokerServiceUrl = Strp(plain)
		}
		if secure != "" {
			resp.BrokerServiceUrlTls = Strp(secure)
		}
		resp.Authoritative = boolp(true)
	}
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_LOOKUP_RESPONSE.Enum(), LookupTopicResponse: resp})
}

// handlePartitionedMetadata reports the partitions of a partitioned topic
// and 0 for any other topic, as Pulsar does for non-partitioned topics; a
// topic of a missing namespace is TopicNotFound "Namespace not found".
func (c *Conn) handlePartitionedMetadata(m *proto.CommandPartitionedTopicMetadata) {
	rid := m.GetRequestId()
	resp := &proto.CommandPartitionedTopicMetadataResponse{RequestId: &rid}
	name, err := engine.ParseTopic(m.GetTopic())
	if err == nil {
		release, ok := c.b.acquireLookup()
		if !ok {
			c.refusePartitionedMetadata(rid)
			return
		}
		defer release()
	}
	if err != nil {
		resp.Response = proto.CommandPartitionedTopicMetadataResponse_Failed.Enum()
		resp.Error = proto.ServerError_InvalidTopicName.Enum()
		resp.Message = Strp(err.Error())
	} else if msg := c.lookupRefusal(name); msg != "" {
		resp.Response = proto.CommandPartitionedTopicMetadataResponse_Failed.Enum()
		resp.Error = proto.ServerError_AuthorizationError.Enum()
		resp.Message = Strp(msg)
	} else if !c.b.Eng.NamespaceReady(name) {
		resp.Response = proto.CommandPartitionedTopicMetadataResponse_Failed.Enum()
		resp.Error = proto.ServerError_TopicNotFound.Enum()
		resp.Message = Strp(engine.NsNotFoundReason)
	} else {
		n := uint32(0)
		if name.Partition < 0 {
			n = uint32(c.b.Eng.PartitionCount(name.Full))
		}
		if n == 0 && c.b.Eng.AutoTopicAllowed(name) && !c.b.Eng.TopicExists(name) {
			// allowAutoTopicCreationType=partitioned: created on first lookup.
			created, err := c.b.Eng.AutoCreatePartitions(name)
			if err == nil {
				n = uint32(created)
			} else if r := (*engine.Refusal)(nil); errors.As(err, &r) { // limits_admin.go
				resp.Response = proto.CommandPartitionedTopicMetadataResponse_Failed.Enum()
				resp.Error, resp.Message = r.Code.Enum(), Strp(r.Text)
			}
		}
		switch {
		case resp.Response != nil: // refused by the max topics above
		case n == 0 && !c.b.Eng.TopicExists(name) && !c.b.Eng.AutoTopicAllowed(name):
			resp.Response = proto.CommandPartitionedTopicMetadataResponse_Failed.Enum()
			resp.Error = proto.ServerError_TopicNotFound.Enum()
			resp.Message = Strp("topic " + name.Full + " does not exist")
		default:
			resp.Response = proto.CommandPartitionedTopicMetadataResponse_Success.Enum()
			resp.Partitions = &n
		}
	}
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_PARTITIONED_METADATA_RESPONSE.Enum(), PartitionMetadataResponse: resp})
}

// handleTopicsOfNamespace lists the namespace's topics (partitions by their
// partition names, system topics left out) as Pulsar's ServerCnx does: with
// a topics_pattern of at most subscriptionPatternMaxLength characters the
// list is filtered (filtered=true); topics_hash is always the hash of the
// list, and when the client's topics_hash equals it the topics are left out
// and changed is false.
func (c *Conn) handleTopicsOfNamespace(m *proto.CommandGetTopicsOfNamespace) {
	rid := m.GetRequestId()
	if !c.authorizeNamespaceTopics(rid, m.GetNamespace(), "Proxy Client is not authorized to GetTopicsOfNamespace") {
		return
	}
	mode := m.GetMode()
	if msg := c.b.Eng.RefuseTopicsOfMissingNamespace(m.GetNamespace(), mode); msg != "" { // limits_admin.go
		c.sendError(rid, proto.ServerError_MetadataError, msg)
		return
	}
	topics := c.b.Eng.ListNamespaceTopics(m.GetNamespace(),
		mode != proto.CommandGetTopicsOfNamespace_NON_PERSISTENT,
		mode != proto.CommandGetTopicsOfNamespace_PERSISTENT)
	resp := &proto.CommandGetTopicsOfNamespaceResponse{RequestId: &rid, Filtered: boolp(false)}
	if m.TopicsPattern != nil && len(m.GetTopicsPattern()) <= engine.SubscriptionPatternMaxLength {
		p, err := engine.CompileTopicsPattern(m.GetTopicsPattern())
		if err != nil {
			c.sendError(rid, proto.ServerError_MetadataError, "invalid topics pattern: "+err.Error())
			return
		}
		topics = p.Filter(topics)
		resp.Filtered = boolp(true)
	}
	hash := engine.TopicsHash(topics)
	unchanged := m.TopicsHash != nil && m.GetTopicsHash() == hash
	if !unchanged {
		resp.Topics = topics
	}
	resp.TopicsHash = &hash
	resp.Changed = boolp(!unchanged)
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_GET_TOPICS_OF_NAMESPACE_RESPONSE.Enum(), GetTopicsOfNamespaceResponse: resp})
}

func boolp(v bool) *bool { return &v }

// refuseLookup answers a LOOKUP over the limit.
func (c *Conn) refuseLookup(rid uint64) {
	c.log.Debug("lookup refused: too many pending lookups", "limit", c.b.Cfg.MaxConcurrentLookups)
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_LOOKUP_RESPONSE.Enum(), LookupTopicResponse: &proto.CommandLookupTopicResponse{
		RequestId: &rid, Response: proto.CommandLookupTopicResponse_Failed.Enum(),
		Error: proto.ServerError_TooManyRequests.Enum(), Message: Strp(TooManyLookups)}})
}

// refusePartitionedMetadata answers a PARTITIONED_METADATA over the limit.
func (c *Conn) refusePartitionedMetadata(rid uint64) {
	c.log.Debug("partitioned metadata refused: too many pending lookups", "limit", c.b.Cfg.MaxConcurrentLookups)
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_PARTITIONED_METADATA_RESPONSE.Enum(), PartitionMetadataResponse: &proto.CommandPartitionedTopicMetadataResponse{
		RequestId: &rid, Response: proto.CommandPartitionedTopicMetadataResponse_Failed.Enum(),
		Error: proto.ServerError_TooManyRequests.Enum(), Message: Strp(TooManyLookups)}})
}
