package producer

import (
	"context"
	"fmt"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// SchemaVersion returns the version of Options.Schema the broker answered
// in PRODUCER_SUCCESS, nil for none.
func (p *Producer) SchemaVersion() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.schemaVer
}

// GetOrCreateSchema registers s for the producer's topic, or finds it
// registered (GET_OR_CREATE_SCHEMA), and returns its version. A schema the
// topic's compatibility strategy refuses fails with the broker's
// IncompatibleSchema error.
func (p *Producer) GetOrCreateSchema(ctx context.Context, s *proto.Schema) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, p.opts.OperationTimeout)
	defer cancel()
	c, err := p.opts.Connect(ctx)
	if err != nil {
		return nil, err
	}
	rid := c.NewRequestID()
	resp, err := c.Request(ctx, rid, &proto.BaseCommand{
		Type: proto.BaseCommand_GET_OR_CREATE_SCHEMA.Enum(),
		GetOrCreateSchema: &proto.CommandGetOrCreateSchema{
			RequestId: gproto.Uint64(rid), Topic: gproto.String(p.opts.Topic), Schema: s,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("get or create schema on %s: %w", p.opts.Topic, err)
	}
	return resp.GetGetOrCreateSchemaResponse().GetSchemaVersion(), nil
}
