package pulsar

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/pulsargo/sdk/internal/producer"
)

// maxProducerSchemas bounds the schema versions a producer remembers (one
// per distinct ProducerMessage.Schema); beyond it the cache starts over.
const maxProducerSchemas = 256

// producerSchemas turns a message's Value into its payload and finds the
// schema version it is written with: the producer's schema (its version
// from PRODUCER_SUCCESS) or the message's own (GET_OR_CREATE_SCHEMA, once
// per distinct schema).
type producerSchemas struct {
	schema       Schema // the producer's, nil for none
	key          string
	disableMulti bool

	mu       sync.Mutex
	versions map[string][]byte // schemaKey -> version
}

func newProducerSchemas(opts ProducerOptions) (*producerSchemas, error) {
	s := effectiveSchema(opts.Schema)
	if err := checkSchema(s); err != nil {
		return nil, err
	}
	ps := &producerSchemas{schema: s, disableMulti: opts.DisableMultiSchema, versions: map[string][]byte{}}
	if s != nil {
		ps.key = schemaKey(s.GetSchemaInfo())
	}
	return ps, nil
}

// prepare returns the message to hand to the engine of pp (its Payload the
// encoded Value, if msg has one) and its schema version. The message is a
// value that the caller passes by address to the engine, which does not
// keep it: a send allocates no engine message.
func (ps *producerSchemas) prepare(ctx context.Context, pp *producer.Producer, msg *ProducerMessage) (producer.Message, []byte, error) {
	if msg.Value != nil && msg.Payload != nil {
		return producer.Message{}, nil, fmt.Errorf("%w: a message has Value or Payload, not both", ErrInvalidOptions)
	}
	s := ps.schema
	if msg.Schema != nil {
		if err := checkSchema(msg.Schema); err != nil {
			return producer.Message{}, nil, err
		}
		if ps.disableMulti && ps.schema != nil && schemaKey(msg.Schema.GetSchemaInfo()) != ps.key {
			return producer.Message{}, nil, &SchemaError{Op: "send", Type: msg.Schema.GetSchemaInfo().Type,
				Err: errors.New("the message's schema is not the producer's and DisableMultiSchema is set")}
		}
		s = msg.Schema
	}
	if s == nil {
		if msg.Value != nil {
			return producer.Message{}, nil, &SchemaError{Op: "encode", Err: errors.New("a message with a Value needs a Schema")}
		}
		return engineMessage(msg, msg.Payload), nil, nil
	}
	version, err := ps.version(ctx, pp, s)
	if err != nil {
		return producer.Message{}, nil, err
	}
	if msg.Value == nil {
		return engineMessage(msg, msg.Payload), version, nil
	}
	payload, err := s.Encode(msg.Value)
	if err != nil {
		return producer.Message{}, nil, schemaErr("encode", s.GetSchemaInfo().Type, err)
	}
	if payload == nil {
		payload = []byte{}
	}
	return engineMessage(msg, payload), version, nil
}

// version returns the schema version of s on pp's topic.
func (ps *producerSchemas) version(ctx context.Context, pp *producer.Producer, s Schema) ([]byte, error) {
	info := s.GetSchemaInfo()
	key := schemaKey(info)
	if key == ps.key {
		if v := pp.SchemaVersion(); len(v) > 0 {
			return v, nil
		}
	}
	ps.mu.Lock()
	v, ok := ps.versions[key]
	ps.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := pp.GetOrCreateSchema(ctx, schemaProto(info))
	if err != nil {
		return nil, &SchemaError{Op: "register", Type: info.Type, Err: wrapErr("get or create schema", err)}
	}
	ps.mu.Lock()
	if len(ps.versions) >= maxProducerSchemas {
		clear(ps.versions)
	}
	ps.versions[key] = v
	ps.mu.Unlock()
	return v, nil
}
