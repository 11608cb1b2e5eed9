package pulsar

import (
	"context"
	"errors"
	"fmt"
	"sync"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/topicname"
)

// maxConsumerSchemas bounds the writers' schemas a consumer or reader
// keeps (one per topic and schema version met); the oldest is forgotten
// beyond it.
const maxConsumerSchemas = 128

// consumerSchemas decodes the messages of one consumer or reader: each
// with the schema of its version, fetched from the broker (GET_SCHEMA) and
// kept, else with the consumer's own schema.
type consumerSchemas struct {
	c      *client
	schema Schema // the consumer's, nil for none

	// fetch gets the schema of a version: fetchFromBroker (tests replace
	// it).
	fetch func(topic string, version []byte) (Schema, error)

	mu    sync.Mutex
	byKey map[string]Schema // schema id + version -> writer's schema
	order []string          // keys, oldest first
}

func newConsumerSchemas(c *client, s Schema) (*consumerSchemas, error) {
	s = effectiveSchema(s)
	if err := checkSchema(s); err != nil {
		return nil, err
	}
	cs := &consumerSchemas{c: c, schema: s, byKey: map[string]Schema{}}
	cs.fetch = cs.fetchFromBroker
	return cs, nil
}

// protoSchema is the consumer's schema for SUBSCRIBE, nil for none.
func (cs *consumerSchemas) protoSchema() *proto.Schema {
	if cs.schema == nil {
		return nil
	}
	return schemaProto(cs.schema.GetSchemaInfo())
}

// decode decodes payload, of topic (a partition's name) and written with
// version (nil for none), into v. A codec that panics (an application's
// Schema, a value type the codec library cannot handle) gives a
// *SchemaError too.
func (cs *consumerSchemas) decode(topic string, version, payload []byte, v any) (err error) {
	var s Schema
	if cs != nil {
		s = cs.schema
	}
	if len(version) > 0 && cs != nil {
		if s, err = cs.writer(topic, version); err != nil {
			return err
		}
	}
	if s == nil {
		return &SchemaError{Op: "decode", Err: errors.New("the message has no schema version and the consumer no Schema")}
	}
	t := NONE
	if info := s.GetSchemaInfo(); info != nil {
		t = info.Type
	}
	defer func() {
		if r := recover(); r != nil {
			err = &SchemaError{Op: "decode", Type: t, Err: fmt.Errorf("codec panicked: %v", r)}
		}
	}()
	return schemaErr("decode", t, s.Decode(payload, v))
}

// writer returns the schema of version on topic, from the cache or the
// broker.
func (cs *consumerSchemas) writer(topic string, version []byte) (Schema, error) {
	id := topic
	if n, err := topicname.Parse(topic); err == nil {
		id = n.Base // partitions share their topic's schema
	}
	key := id + "\x00" + string(version)
	cs.mu.Lock()
	s, ok := cs.byKey[key]
	cs.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := cs.fetch(topic, version)
	if err != nil {
		return nil, err
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if _, ok := cs.byKey[key]; !ok {
		if len(cs.order) >= maxConsumerSchemas {
			delete(cs.byKey, cs.order[0])
			cs.order = cs.order[1:]
		}
		cs.byKey[key] = s
		cs.order = append(cs.order, key)
	}
	return s, nil
}

// fetchFromBroker asks the broker serving topic for the schema of version
// (GET_SCHEMA) and builds it.
func (cs *consumerSchemas) fetchFromBroker(topic string, version []byte) (Schema, error) {
	ctx, cancel := cs.c.opContext()
	defer cancel()
	resp, err := cs.getSchema(ctx, topic, version)
	if err != nil {
		return nil, &SchemaError{Op: "fetch", Err: wrapErr(fmt.Sprintf("get schema version %x of %s", version, topic), err)}
	}
	ps := resp.GetSchema()
	if ps == nil {
		return nil, &SchemaError{Op: "fetch", Err: fmt.Errorf("the broker has no schema version %x of %s", version, topic)}
	}
	props := map[string]string{}
	for _, kv := range ps.GetProperties() {
		props[kv.GetKey()] = kv.GetValue()
	}
	s, err := NewSchema(SchemaType(ps.GetType()), ps.GetSchemaData(), props)
	if err != nil {
		return nil, schemaErr("fetch", SchemaType(ps.GetType()), err)
	}
	return s, nil
}

func (cs *consumerSchemas) getSchema(ctx context.Context, topic string, version []byte) (*proto.CommandGetSchemaResponse, error) {
	cn, err := cs.c.connFor(ctx, topic, 0)
	if err != nil {
		return nil, err
	}
	rid := cn.NewRequestID()
	resp, err := cn.Request(ctx, rid, &proto.BaseCommand{
		Type: proto.BaseCommand_GET_SCHEMA.Enum(),
		GetSchema: &proto.CommandGetSchema{
			RequestId: gproto.Uint64(rid), Topic: gproto.String(topic), SchemaVersion: version,
		},
	})
	if err != nil {
		return nil, err
	}
	return resp.GetGetSchemaResponse(), nil
}
