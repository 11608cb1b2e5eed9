package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/schema"
	"github.com/pulsargo/sdk/brokerstub/internal/store"
	"github.com/pulsargo/sdk/internal/proto"
)

// newSchemaRegistry builds the registry over the broker's current store,
// with the broker-level policy of opts.
func newSchemaRegistry(b *Engine) (*schema.Registry, error) {
	def := schema.Policy{}
	if s := b.cfg.SchemaCompatibilityStrategy; s != "" {
		st, err := schema.ParseStrategy(s)
		if err != nil {
			return nil, fmt.Errorf("brokerstub: SchemaCompatibilityStrategy: %w", err)
		}
		def.Strategy = st
	}
	if b.cfg.DisableSchemaAutoUpdate {
		def.AutoUpdate = new(bool)
	}
	if b.cfg.SchemaValidationEnforced {
		t := true
		def.ValidationEnforced = &t
	}
	r := schema.New(func() schema.Store { return b.st.(store.SchemaStore) }, b.cfg.Clock.Now, def)
	r.SetLookup(b.schemaPolicy) // the namespace and topic policies: schema_policies.go
	return r, nil
}

// SchemaID is the registry's id of a topic: its base name without domain
// and partition, as Pulsar's TopicName.getSchemaName.
func SchemaID(n TopicName) string { return strings.TrimPrefix(n.Base, n.Domain+"://") }

// fromProto converts a protocol schema; it reports false for no schema: none
// sent, or a negative type (the Go client sends AUTO_CONSUME as -3, which the
// protocol's enum lacks). Type None is a schema: the Go client sends its
// BYTES schema so, and Pulsar registers it as a version of type NONE.
func fromProto(p *proto.Schema) (schema.Schema, bool) {
	if p == nil || p.GetType() < proto.Schema_None {
		return schema.Schema{}, false
	}
	s := schema.Schema{Type: schema.Type(p.GetType()), Data: p.GetSchemaData()}
	if len(p.GetProperties()) > 0 {
		s.Props = make(map[string]string, len(p.GetProperties()))
		for _, kv := range p.GetProperties() {
			s.Props[kv.GetKey()] = kv.GetValue()
		}
	}
	return s, true
}

// SchemaError maps a registry error to Pulsar's error code.
func SchemaError(err error) proto.ServerError {
	switch {
	case schema.IsRefusal(err):
		return proto.ServerError_IncompatibleSchema
	case errors.Is(err, schema.ErrNotFound):
		return proto.ServerError_TopicNotFound
	case errors.Is(err, ErrTopicClosed):
		return proto.ServerError_ServiceNotReady
	}
	return proto.ServerError_UnknownError
}

// AddProducerSchema registers or finds the schema a producer sends (Pulsar's
// tryAddSchema) and returns its version bytes, empty for a producer without
// a schema.
func (b *Engine) AddProducerSchema(name TopicName, p *proto.Schema) ([]byte, error) {
	s, ok := fromProto(p)
	if !ok {
		return []byte{}, b.schemas.CheckProducerWithoutSchema(SchemaID(name))
	}
	v, err := b.schemas.AddSchema(SchemaID(name), s)
	if err != nil {
		return nil, err
	}
	return schema.VersionBytes(v), nil
}

// CheckConsumerSchema checks the schema of a SUBSCRIBE on t, registering it
// when the topic is idle. A consumer without a schema is not checked; nor is
// an AUTO_CONSUME one (type 21, or the Go client's -3, which is no schema).
func (t *Topic) CheckConsumerSchema(p *proto.Schema) error {
	s, ok := fromProto(p)
	if !ok || s.Type == schema.AutoConsume {
		return nil
	}
	active := false
	if err := t.Call(func() { active = t.schemaActive() }); err != nil {
		return err
	}
	return t.b.schemas.CheckConsumer(SchemaID(t.name), s, active)
}

// schemaActive reports whether the topic is in use, so that a consumer's
// schema is checked rather than registered: it has producers, consumers
// other than AUTO_CONSUME ones, or stored entries (Pulsar counts the entries
// added since the topic was loaded; the stub counts those stored).
func (t *Topic) schemaActive() bool {
	if len(t.producers) > 0 || t.Led.Len() > 0 {
		return true
	}
	for _, s := range t.Subs {
		for _, cs := range s.Consumers {
			if !cs.autoConsume {
				return true
			}
		}
	}
	return false
}

// DeleteSchema deletes the schema of topic (a base name or any of its
// partitions: they share one), as the admin API's DELETE
// /admin/v2/schemas/{tenant}/{ns}/{topic}/schema?force= does; see
// schema.Registry.Delete for what force changes. It returns the version of
// the deletion marker, -1 when none was written.
func (b *Engine) DeleteSchema(topic string, force bool) (int64, error) {
	name, err := ParseTopic(topic)
	if err != nil {
		return -1, err
	}
	return b.schemas.Delete(SchemaID(name), force)
}
