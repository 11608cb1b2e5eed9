package brokerstub

import (
	"github.com/pulsargo/sdk/internal/proto"
)

// handleGetSchema answers that no schema is stored: the stub keeps none.
func (c *conn) handleGetSchema(m *proto.CommandGetSchema) {
	rid := m.GetRequestId()
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_GET_SCHEMA_RESPONSE.Enum(), GetSchemaResponse: &proto.CommandGetSchemaResponse{
		RequestId: &rid, ErrorCode: proto.ServerError_TopicNotFound.Enum(), ErrorMessage: strp("no schema stored")}})
}

// handleGetOrCreateSchema accepts any schema without checking compatibility.
func (c *conn) handleGetOrCreateSchema(m *proto.CommandGetOrCreateSchema) {
	rid := m.GetRequestId()
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_GET_OR_CREATE_SCHEMA_RESPONSE.Enum(),
		GetOrCreateSchemaResponse: &proto.CommandGetOrCreateSchemaResponse{RequestId: &rid, SchemaVersion: []byte{0, 0, 0, 0, 0, 0, 0, 0}}})
}
