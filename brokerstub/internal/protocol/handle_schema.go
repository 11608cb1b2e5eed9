package protocol

import (
	"errors"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/schema"
	"github.com/pulsargo/sdk/internal/proto"
)

// The schema registry (brokerstub/internal/schema) is broker-wide: one schema
// id is shared by every partition of a topic, each owned by its own
// goroutine, so the registry has its own lock instead of a topic owner. This
// file turns the protocol's schemas into the registry's and its answers
// into Pulsar's: GET_SCHEMA, GET_OR_CREATE_SCHEMA, and the schema of
// PRODUCER and SUBSCRIBE.

// handleGetSchema answers the latest schema of a topic, or the version asked
// for; a topic without one, a deleted schema or a missing version is
// TopicNotFound, as Pulsar answers.
func (c *Conn) handleGetSchema(m *proto.CommandGetSchema) {
	rid := m.GetRequestId()
	fail := func(code proto.ServerError, msg string) {
		c.write(&proto.BaseCommand{Type: proto.BaseCommand_GET_SCHEMA_RESPONSE.Enum(), GetSchemaResponse: &proto.CommandGetSchemaResponse{
			RequestId: &rid, ErrorCode: code.Enum(), ErrorMessage: &msg}})
	}
	version := int64(-1)
	if m.SchemaVersion != nil {
		if len(m.SchemaVersion) == 0 {
			fail(proto.ServerError_IncompatibleSchema, "Empty schema version")
			return
		}
		v, err := schema.ParseVersion(m.SchemaVersion)
		if err != nil {
			fail(proto.ServerError_UnknownError, err.Error())
			return
		}
		if v < 0 {
			// A negative version names no stored version; it is not "latest".
			fail(proto.ServerError_TopicNotFound, "Topic not found or no-schema "+m.GetTopic())
			return
		}
		version = v
	}
	name, err := engine.ParseTopic(m.GetTopic())
	if err != nil {
		fail(proto.ServerError_InvalidTopicName, err.Error())
		return
	}
	id := engine.SchemaID(name)
	got, err := c.b.Eng.Schema(id, version)
	switch {
	case errors.Is(err, schema.ErrNotFound):
		fail(proto.ServerError_TopicNotFound, "Topic not found or no-schema "+m.GetTopic())
		return
	case err != nil:
		fail(proto.ServerError_UnknownError, err.Error())
		return
	}
	typ := proto.Schema_Type(got.Schema.Type)
	ps := &proto.Schema{Name: &id, SchemaData: got.Schema.Data, Type: &typ}
	if ps.SchemaData == nil {
		ps.SchemaData = []byte{}
	}
	for k, v := range got.Schema.Props {
		ps.Properties = append(ps.Properties, &proto.KeyValue{Key: Strp(k), Value: Strp(v)})
	}
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_GET_SCHEMA_RESPONSE.Enum(), GetSchemaResponse: &proto.CommandGetSchemaResponse{
		RequestId: &rid, Schema: ps, SchemaVersion: schema.VersionBytes(got.Version)}})
}

// handleGetOrCreateSchema registers the schema on an existing topic, or
// returns the version it already has, under the topic's compatibility
// strategy (what a producer sending messages of several schemas asks).
func (c *Conn) handleGetOrCreateSchema(m *proto.CommandGetOrCreateSchema) {
	rid := m.GetRequestId()
	fail := func(code proto.ServerError, msg string) {
		c.write(&proto.BaseCommand{Type: proto.BaseCommand_GET_OR_CREATE_SCHEMA_RESPONSE.Enum(),
			GetOrCreateSchemaResponse: &proto.CommandGetOrCreateSchemaResponse{RequestId: &rid, ErrorCode: code.Enum(), ErrorMessage: &msg}})
	}
	name, err := engine.ParseTopic(m.GetTopic())
	if err != nil {
		fail(proto.ServerError_InvalidTopicName, err.Error())
		return
	}
	if !c.b.Eng.TopicExists(name) {
		fail(proto.ServerError_TopicNotFound, "Topic not found "+m.GetTopic())
		return
	}
	s := m.GetSchema()
	if s.GetType() == proto.Schema_None {
		s = nil // Pulsar: a NONE schema here means no schema
	}
	v, err := c.b.Eng.AddProducerSchema(name, s)
	if err != nil {
		fail(engine.SchemaError(err), err.Error())
		return
	}
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_GET_OR_CREATE_SCHEMA_RESPONSE.Enum(),
		GetOrCreateSchemaResponse: &proto.CommandGetOrCreateSchemaResponse{RequestId: &rid, SchemaVersion: v}})
}
