package brokerstub

import (
	"bytes"
	"strings"
	"testing"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub/internal/schema"
	"github.com/pulsargo/sdk/internal/proto"
)

const (
	schemaTopic = "persistent://public/default/schema-t"
	avroV1      = `{"type":"record","name":"User","fields":[{"name":"name","type":"string"}]}`
	avroV2      = `{"type":"record","name":"User","fields":[{"name":"name","type":"string"},{"name":"age","type":"int","default":0}]}`
	avroBad     = `{"type":"record","name":"User","fields":[{"name":"name","type":"long"}]}`
)

func pbSchema(t proto.Schema_Type, data string) *proto.Schema {
	return &proto.Schema{Name: gproto.String("s"), Type: t.Enum(), SchemaData: []byte(data)}
}

// schemaClient is a raw client with request helpers for schema tests.
type schemaClient struct {
	*rawClient
	rid uint64
}

func dialSchema(t *testing.T, b *Broker) *schemaClient {
	c := &schemaClient{rawClient: dialRaw(t, b)}
	c.connect()
	return c
}

func (c *schemaClient) nextRID() uint64 { c.rid++; return c.rid }

// producer creates a producer with schema s and returns PRODUCER_SUCCESS, or
// the error.
func (c *schemaClient) producer(topic string, id uint64, s *proto.Schema) (*proto.CommandProducerSuccess, *proto.CommandError) {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: &topic, ProducerId: &id, RequestId: gproto.Uint64(c.nextRID()), Schema: s}})
	for {
		cmd := c.expectAny()
		switch cmd.GetType() {
		case proto.BaseCommand_PRODUCER_SUCCESS:
			return cmd.GetProducerSuccess(), nil
		case proto.BaseCommand_ERROR:
			return nil, cmd.GetError()
		}
	}
}

func (c *schemaClient) subscribe(topic, sub string, id uint64, s *proto.Schema) *proto.CommandError {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &topic, Subscription: &sub, SubType: proto.CommandSubscribe_Shared.Enum(), ConsumerId: &id,
		RequestId: gproto.Uint64(c.nextRID()), Schema: s}})
	for {
		cmd := c.expectAny()
		switch cmd.GetType() {
		case proto.BaseCommand_SUCCESS:
			return nil
		case proto.BaseCommand_ERROR:
			return cmd.GetError()
		}
	}
}

func (c *schemaClient) getSchema(topic string, version []byte) *proto.CommandGetSchemaResponse {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_GET_SCHEMA.Enum(), GetSchema: &proto.CommandGetSchema{
		Topic: &topic, RequestId: gproto.Uint64(c.nextRID()), SchemaVersion: version}})
	return c.expect(proto.BaseCommand_GET_SCHEMA_RESPONSE).GetGetSchemaResponse()
}

func (c *schemaClient) getOrCreate(topic string, s *proto.Schema) *proto.CommandGetOrCreateSchemaResponse {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_GET_OR_CREATE_SCHEMA.Enum(), GetOrCreateSchema: &proto.CommandGetOrCreateSchema{
		Topic: &topic, RequestId: gproto.Uint64(c.nextRID()), Schema: s}})
	return c.expect(proto.BaseCommand_GET_OR_CREATE_SCHEMA_RESPONSE).GetGetOrCreateSchemaResponse()
}

// expectAny reads the next frame that is not a ping.
func (c *schemaClient) expectAny() *proto.BaseCommand {
	c.t.Helper()
	for {
		f, err := c.next()
		if err != nil {
			c.t.Fatalf("read: %v", err)
		}
		if f.Cmd.GetType() != proto.BaseCommand_PING {
			return f.Cmd
		}
	}
}

func ver(v int64) []byte { return schema.VersionBytes(v) }

func TestSchemaProducerRegistersAndReuses(t *testing.T) {
	b := RunT(t)
	c := dialSchema(t, b)
	ok, perr := c.producer(schemaTopic, 1, pbSchema(proto.Schema_Avro, avroV1))
	if perr != nil || !bytes.Equal(ok.GetSchemaVersion(), ver(0)) {
		t.Fatalf("first producer: %v, %v", ok, perr)
	}
	// The same schema, written differently, on a partition of the same name
	// and through another connection: the same version.
	spaced := strings.ReplaceAll(avroV1, ",", " , ")
	ok, perr = dialSchema(t, b).producer(schemaTopic, 1, pbSchema(proto.Schema_Avro, spaced))
	if perr != nil || !bytes.Equal(ok.GetSchemaVersion(), ver(0)) {
		t.Fatalf("same schema: %v, %v", ok, perr)
	}
	ok, perr = c.producer(schemaTopic, 2, pbSchema(proto.Schema_Avro, avroV2))
	if perr != nil || !bytes.Equal(ok.GetSchemaVersion(), ver(1)) {
		t.Fatalf("compatible schema: %v, %v", ok, perr)
	}
	_, perr = c.producer(schemaTopic, 3, pbSchema(proto.Schema_Avro, avroBad))
	if perr.GetError() != proto.ServerError_IncompatibleSchema {
		t.Fatalf("incompatible schema: %v", perr)
	}
	_, perr = c.producer(schemaTopic, 4, pbSchema(proto.Schema_String, ""))
	if perr.GetError() != proto.ServerError_IncompatibleSchema || !strings.Contains(perr.GetMessage(), "exists schema type AVRO") {
		t.Fatalf("other type: %v", perr)
	}
	// A producer without a schema is accepted (validation not enforced),
	// with an empty schema version.
	ok, perr = c.producer(schemaTopic, 5, nil)
	if perr != nil || len(ok.GetSchemaVersion()) != 0 {
		t.Fatalf("producer without schema: %v, %v", ok, perr)
	}

	got := c.getSchema(schemaTopic, nil)
	if got.ErrorCode != nil || !bytes.Equal(got.GetSchemaVersion(), ver(1)) || string(got.GetSchema().GetSchemaData()) != avroV2 ||
		got.GetSchema().GetType() != proto.Schema_Avro || got.GetSchema().GetName() != "public/default/schema-t" {
		t.Fatalf("latest: %v", got)
	}
	got = c.getSchema(schemaTopic+"-partition-3", ver(0))
	if got.ErrorCode != nil || string(got.GetSchema().GetSchemaData()) != avroV1 {
		t.Fatalf("version 0 by a partition name: %v", got)
	}
	for _, v := range []int64{7, -1} {
		if got := c.getSchema(schemaTopic, ver(v)); got.GetErrorCode() != proto.ServerError_TopicNotFound {
			t.Fatalf("missing version %d: %v", v, got)
		}
	}
	if got := c.getSchema("persistent://public/default/none", nil); got.GetErrorCode() != proto.ServerError_TopicNotFound {
		t.Fatalf("topic without schema: %v", got)
	}
}

func TestSchemaGetOrCreate(t *testing.T) {
	b := RunT(t)
	c := dialSchema(t, b)
	if r := c.getOrCreate("persistent://public/default/absent", pbSchema(proto.Schema_String, "")); r.GetErrorCode() != proto.ServerError_TopicNotFound {
		t.Fatalf("absent topic: %v", r)
	}
	if _, perr := c.producer(schemaTopic, 1, pbSchema(proto.Schema_Avro, avroV1)); perr != nil {
		t.Fatal(perr)
	}
	if r := c.getOrCreate(schemaTopic, pbSchema(proto.Schema_Avro, avroV1)); r.ErrorCode != nil || !bytes.Equal(r.GetSchemaVersion(), ver(0)) {
		t.Fatalf("existing: %v", r)
	}
	if r := c.getOrCreate(schemaTopic, pbSchema(proto.Schema_Avro, avroV2)); r.ErrorCode != nil || !bytes.Equal(r.GetSchemaVersion(), ver(1)) {
		t.Fatalf("new: %v", r)
	}
	if r := c.getOrCreate(schemaTopic, pbSchema(proto.Schema_Avro, avroBad)); r.GetErrorCode() != proto.ServerError_IncompatibleSchema {
		t.Fatalf("incompatible: %v", r)
	}
}

func TestSchemaConsumerChecks(t *testing.T) {
	b := RunT(t)
	c := dialSchema(t, b)
	// A consumer on an idle topic registers its schema.
	if err := c.subscribe(schemaTopic, "s1", 1, pbSchema(proto.Schema_Avro, avroV2)); err != nil {
		t.Fatal(err)
	}
	if got := c.getSchema(schemaTopic, nil); !bytes.Equal(got.GetSchemaVersion(), ver(0)) {
		t.Fatalf("consumer's schema not registered: %v", got)
	}
	// A reader of a subset of the fields may join; one that needs a field
	// the latest schema lacks may not.
	if err := c.subscribe(schemaTopic, "s2", 2, pbSchema(proto.Schema_Avro, avroV1)); err != nil {
		t.Fatalf("compatible consumer: %v", err)
	}
	if err := c.subscribe(schemaTopic, "s3", 3, pbSchema(proto.Schema_Avro, avroBad)); err.GetError() != proto.ServerError_IncompatibleSchema {
		t.Fatalf("incompatible consumer: %v", err)
	}
	// On an active topic without a schema a consumer with one is refused.
	other := "persistent://public/default/schema-none"
	if _, perr := c.producer(other, 9, nil); perr != nil {
		t.Fatal(perr)
	}
	if err := c.subscribe(other, "s", 4, pbSchema(proto.Schema_String, "")); err.GetError() != proto.ServerError_IncompatibleSchema {
		t.Fatalf("schema consumer on an active schema-less topic: %v", err)
	}
	if err := c.subscribe(other, "s", 5, nil); err != nil {
		t.Fatalf("consumer without schema: %v", err)
	}
}

func TestSchemaStrategyOptionsAndPolicy(t *testing.T) {
	if _, err := Start(Options{SchemaCompatibilityStrategy: "SOMETIMES", NoListener: true}); err == nil {
		t.Fatal("Start accepted an unknown strategy")
	}
	b := RunT(t, Options{SchemaCompatibilityStrategy: "always_compatible"})
	c := dialSchema(t, b)
	for i, s := range []*proto.Schema{pbSchema(proto.Schema_Avro, avroV1), pbSchema(proto.Schema_Avro, avroBad), pbSchema(proto.Schema_String, "")} {
		ok, perr := c.producer(schemaTopic, uint64(i), s)
		if perr != nil || !bytes.Equal(ok.GetSchemaVersion(), ver(int64(i))) {
			t.Fatalf("ALWAYS_COMPATIBLE producer %d: %v %v", i, ok, perr)
		}
	}
	// A namespace policy overrides the broker's.
	b.eng.SchemaRegistry().SetPolicy("public/default", schema.Policy{Strategy: schema.AlwaysIncompatible})
	if _, perr := c.producer(schemaTopic, 10, pbSchema(proto.Schema_Int32, "")); perr.GetError() != proto.ServerError_IncompatibleSchema {
		t.Fatalf("ALWAYS_INCOMPATIBLE: %v", perr)
	}
	if ok, perr := c.producer(schemaTopic, 11, pbSchema(proto.Schema_String, "")); perr != nil || !bytes.Equal(ok.GetSchemaVersion(), ver(2)) {
		t.Fatalf("ALWAYS_INCOMPATIBLE, registered schema: %v %v", ok, perr)
	}

	e := RunT(t, Options{SchemaValidationEnforced: true, DisableSchemaAutoUpdate: true})
	ec := dialSchema(t, e)
	if _, perr := ec.producer(schemaTopic, 1, pbSchema(proto.Schema_String, "")); perr.GetError() != proto.ServerError_IncompatibleSchema {
		t.Fatalf("auto update disabled: %v", perr)
	}
	if _, perr := ec.producer(schemaTopic, 2, nil); perr != nil {
		t.Fatalf("no schema on a topic without one: %v", perr)
	}
}

func TestSchemaBadInput(t *testing.T) {
	b := RunT(t)
	c := dialSchema(t, b)
	for i, s := range []*proto.Schema{
		pbSchema(proto.Schema_Avro, ""),
		pbSchema(proto.Schema_Avro, "{"),
		pbSchema(proto.Schema_Json, `{"type":"record","name":"R","fields":[{"name":"x","type":"Missing"}]}`),
		pbSchema(proto.Schema_Avro, strings.Repeat("[", 100000)),
		pbSchema(proto.Schema_Avro, strings.Repeat(`{"type":"array","items":`, 5000)+`"int"`+strings.Repeat("}", 5000)),
		pbSchema(proto.Schema_Int64, "not empty"),
		pbSchema(proto.Schema_ProtobufNative, "{}"),
		pbSchema(proto.Schema_Type(21), ""), // AUTO_CONSUME is a client-side type
		pbSchema(proto.Schema_Type(99), ""),
	} {
		if _, perr := c.producer(schemaTopic, uint64(i), s); perr.GetError() != proto.ServerError_IncompatibleSchema {
			t.Errorf("bad schema %d: %v", i, perr)
		}
		if r := c.getOrCreate(schemaTopic, s); r.GetErrorCode() != proto.ServerError_IncompatibleSchema && r.GetErrorCode() != proto.ServerError_TopicNotFound {
			t.Errorf("bad schema %d, GET_OR_CREATE_SCHEMA: %v", i, r)
		}
	}
	if r := c.getSchema(schemaTopic, []byte{}); r.GetErrorCode() != proto.ServerError_IncompatibleSchema {
		t.Fatalf("empty version: %v", r)
	}
	if r := c.getSchema(schemaTopic, []byte{1, 2, 3}); r.GetErrorCode() != proto.ServerError_UnknownError {
		t.Fatalf("short version: %v", r)
	}
	if r := c.getSchema("persistent://a", nil); r.GetErrorCode() != proto.ServerError_InvalidTopicName {
		t.Fatalf("bad topic: %v", r)
	}
	// The connection still works and nothing was registered.
	if r := c.getSchema(schemaTopic, nil); r.GetErrorCode() != proto.ServerError_TopicNotFound {
		t.Fatalf("after bad input: %v", r)
	}
}

func TestSchemaNoneTypeIsRegistered(t *testing.T) {
	// The Go client sends its BYTES schema as type None; Pulsar registers
	// it, and messages carry its version.
	b := RunT(t)
	c := dialSchema(t, b)
	if ok, perr := c.producer(schemaTopic, 1, pbSchema(proto.Schema_None, "")); perr != nil || !bytes.Equal(ok.GetSchemaVersion(), ver(0)) {
		t.Fatalf("NONE producer: %v %v", ok, perr)
	}
	if r := c.getSchema(schemaTopic, ver(0)); r.ErrorCode != nil || r.GetSchema().GetType() != proto.Schema_None {
		t.Fatalf("NONE schema: %v", r)
	}
	if err := c.subscribe(schemaTopic, "s", 2, pbSchema(proto.Schema_None, "")); err != nil {
		t.Fatalf("NONE consumer: %v", err)
	}
	if _, perr := c.producer(schemaTopic, 3, pbSchema(proto.Schema_String, "")); perr.GetError() != proto.ServerError_IncompatibleSchema {
		t.Fatalf("STRING after NONE: %v", perr)
	}
	// GET_OR_CREATE_SCHEMA reads NONE as no schema: the empty version.
	if r := c.getOrCreate(schemaTopic, pbSchema(proto.Schema_None, "")); r.ErrorCode != nil || len(r.GetSchemaVersion()) != 0 {
		t.Fatalf("GET_OR_CREATE_SCHEMA NONE: %v", r)
	}
}

func TestSchemaNegativeTypeIsNoSchema(t *testing.T) {
	// The Go client sends AUTO_CONSUME as -3, which the protocol's enum
	// lacks: no schema.
	b := RunT(t)
	c := dialSchema(t, b)
	s := &proto.Schema{Name: gproto.String("s"), Type: proto.Schema_Type(-3).Enum(), SchemaData: []byte{}}
	if ok, perr := c.producer(schemaTopic, 1, s); perr != nil || len(ok.GetSchemaVersion()) != 0 {
		t.Fatalf("negative type: %v %v", ok, perr)
	}
	if r := c.getSchema(schemaTopic, nil); r.GetErrorCode() != proto.ServerError_TopicNotFound {
		t.Fatalf("a schema was registered: %v", r)
	}
	// An AUTO_CONSUME consumer is not checked and registers nothing.
	if err := c.subscribe(schemaTopic, "auto", 2, pbSchema(proto.Schema_Type(21), "")); err != nil {
		t.Fatalf("AUTO_CONSUME consumer: %v", err)
	}
	if r := c.getSchema(schemaTopic, nil); r.GetErrorCode() != proto.ServerError_TopicNotFound {
		t.Fatalf("AUTO_CONSUME registered a schema: %v", r)
	}
}

func TestSchemaDeleteAndPersistence(t *testing.T) {
	for _, dir := range []string{"", t.TempDir()} {
		b := RunT(t, Options{DataDir: dir})
		c := dialSchema(t, b)
		if _, perr := c.producer(schemaTopic, 1, pbSchema(proto.Schema_Avro, avroV1)); perr != nil {
			t.Fatal(perr)
		}
		if err := b.Crash(); err != nil {
			t.Fatal(err)
		}
		c = dialSchema(t, b)
		if got := c.getSchema(schemaTopic, nil); !bytes.Equal(got.GetSchemaVersion(), ver(0)) {
			t.Fatalf("dir %q: after crash: %v", dir, got)
		}
		if v, err := b.eng.DeleteSchema(schemaTopic, false); err != nil || v != 1 {
			t.Fatalf("delete: %d %v", v, err)
		}
		if got := c.getSchema(schemaTopic, nil); got.GetErrorCode() != proto.ServerError_TopicNotFound {
			t.Fatalf("after delete: %v", got)
		}
		// As Pulsar 4.x: a version from before the deletion is gone too, so a
		// consumer cannot decode a message of the deleted schema (the
		// official TestProducerWithSchemaAndConsumerSchemaNotFound).
		if got := c.getSchema(schemaTopic, ver(0)); got.GetErrorCode() != proto.ServerError_TopicNotFound {
			t.Fatalf("old version after delete: %v", got)
		}
		// Anything may follow a deletion; it is numbered after the marker.
		if ok, perr := c.producer(schemaTopic, 2, pbSchema(proto.Schema_Avro, avroBad)); perr != nil || !bytes.Equal(ok.GetSchemaVersion(), ver(2)) {
			t.Fatalf("after delete: %v %v", ok, perr)
		}
		if err := b.Restart(); err != nil {
			t.Fatal(err)
		}
		if _, err := b.eng.DeleteSchema(schemaTopic, true); err != nil {
			t.Fatal(err)
		}
		c = dialSchema(t, b)
		if ok, perr := c.producer(schemaTopic, 3, pbSchema(proto.Schema_String, "")); perr != nil || !bytes.Equal(ok.GetSchemaVersion(), ver(0)) {
			t.Fatalf("after force delete: %v %v", ok, perr)
		}
	}
}

// TestSchemaConsumerAfterDelete: on a topic in use whose schema was deleted
// a consumer with a schema has nothing to be checked against and is
// refused with IncompatibleSchema (Pulsar's addSchemaIfIdleOrCheckCompatible
// and checkConsumerCompatibility); without a schema it may subscribe.
func TestSchemaConsumerAfterDelete(t *testing.T) {
	b := RunT(t)
	c := dialSchema(t, b)
	if _, perr := c.producer(schemaTopic, 1, pbSchema(proto.Schema_Avro, avroV1)); perr != nil {
		t.Fatal(perr)
	}
	if err := c.subscribe(schemaTopic, "before", 1, pbSchema(proto.Schema_Avro, avroV1)); err != nil {
		t.Fatalf("before delete: %v", err)
	}
	if _, err := b.eng.DeleteSchema(schemaTopic, false); err != nil {
		t.Fatal(err)
	}
	if err := c.subscribe(schemaTopic, "after", 2, pbSchema(proto.Schema_Avro, avroV1)); err.GetError() != proto.ServerError_IncompatibleSchema {
		t.Fatalf("consumer with a schema after delete: %v", err)
	}
	if err := c.subscribe(schemaTopic, "plain", 3, nil); err != nil {
		t.Fatalf("consumer without a schema after delete: %v", err)
	}
}
