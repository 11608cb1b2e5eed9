package admin

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/schema"
)

// The schema resource of the admin API (/admin/v2/schemas/{tenant}/{ns}/
// {topic}/...), served from the broker's schema registry: what the
// official admin clients' Schemas() calls. A schema path names a persistent
// topic's schema id, which the topic's partitions (and the non-persistent
// topic of the same name) share. The topic need not exist; its namespace
// must (404).

// getSchema answers with the topic's latest schema, or the version in the
// path, as Pulsar's GetSchemaResponse; 404 when there is none.
func getSchema(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	v := int64(-1)
	if s, ok := rq.p["version"]; ok {
		if v, err = parseInt64(s, "schema version"); err != nil {
			return nil, err
		}
		if v < 0 {
			return nil, schemaNotFound()
		}
	}
	got, err := rq.b.Eng.SchemaRegistry().Get(engine.SchemaID(name), v)
	if errors.Is(err, schema.ErrNotFound) {
		return nil, schemaNotFound()
	}
	if err != nil {
		return nil, err
	}
	return schemaResponse(got), nil
}

func schemaNotFound() error { return engine.RestErr(http.StatusNotFound, "Schema not found") }

// schemaResponseJSON is Pulsar's GetSchemaResponse.
type schemaResponseJSON struct {
	Version    int64             `json:"version"`
	Type       string            `json:"type"`
	Timestamp  int64             `json:"timestamp"`
	Data       string            `json:"data"`
	Properties map[string]string `json:"properties"`
}

// getAllSchemasResponse is Pulsar's GetAllVersionsSchemaResponse.
type getAllSchemasResponse struct {
	GetSchemaResponses []schemaResponseJSON `json:"getSchemaResponses"`
}

// schemaVersionResponse is Pulsar's DeleteSchemaResponse and
// LongSchemaVersionResponse: a schema version (-1: none).
type schemaVersionResponse struct {
	Version int64 `json:"version"`
}

// postSchemaResponse is Pulsar's PostSchemaResponse: the version the
// upload has, itself a {"version": N} object.
type postSchemaResponse struct {
	Version schemaVersionResponse `json:"version"`
}

// compatibilityResponse is Pulsar's IsCompatibilityResponse.
type compatibilityResponse struct {
	Compatibility bool   `json:"compatibility"`
	Strategy      string `json:"schemaCompatibilityStrategy"`
}

func schemaResponse(v schema.Version) schemaResponseJSON {
	props := v.Schema.Props
	if props == nil {
		props = map[string]string{}
	}
	data := string(v.Schema.Data)
	if v.Schema.Type == schema.KeyValue {
		data = keyValueString(v.Schema)
	}
	return schemaResponseJSON{Version: v.Version, Type: v.Schema.Type.String(), Timestamp: v.Timestamp,
		Data: data, Properties: props}
}

// keyValueString writes a KEY_VALUE schema's data in Pulsar's string form
// (convertKeyValueSchemaInfoDataToString): {"key": K, "value": V}, where a
// part of a structured type (AVRO, JSON, PROTOBUF, PROTOBUF_NATIVE) is its
// JSON definition and any other part "".
func keyValueString(s schema.Schema) string {
	k, v, err := schema.SplitKeyValue(s)
	if len(s.Data) == 0 {
		k, v, err = schema.Schema{}, schema.Schema{}, nil // two BYTES
	}
	if err != nil {
		return string(s.Data)
	}
	part := func(p schema.Schema) json.RawMessage {
		switch p.Type {
		case schema.Avro, schema.JSON, schema.Protobuf, schema.ProtobufNative:
			if json.Valid(p.Data) {
				return p.Data
			}
			b, _ := json.Marshal(string(p.Data))
			return b
		}
		return json.RawMessage(`""`)
	}
	b, err := json.Marshal(map[string]json.RawMessage{"key": part(k), "value": part(v)})
	if err != nil {
		return string(s.Data)
	}
	return string(b)
}

// keyValueData reads Pulsar's string form of a KEY_VALUE schema, {"key": K,
// "value": V}, into its binary encoding
// (convertKeyValueDataStringToSchemaInfoSchema): each part is the compact
// JSON text of K or V, or empty for "". The parts' types travel in the
// payload's properties (key.schema.type, value.schema.type).
func keyValueData(s string) ([]byte, error) {
	var parts map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &parts); err != nil || parts["key"] == nil || parts["value"] == nil {
		return nil, engine.RestErr(http.StatusUnprocessableEntity, `KEY_VALUE schema is not {"key": ..., "value": ...}`)
	}
	part := func(raw json.RawMessage) []byte {
		var b bytes.Buffer
		_ = json.Compact(&b, raw) // valid: it was decoded
		if b.String() == `""` {
			return []byte{}
		}
		return b.Bytes()
	}
	return schema.KeyValueData(part(parts["key"]), part(parts["value"])), nil
}

// getAllSchemas answers every version since the latest deletion, oldest
// first, as Pulsar's GetAllVersionsSchemaResponse (trimDeletedSchemaAndGetList:
// after a deletion, or for a topic without a schema, the list is empty).
func getAllSchemas(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	all, err := rq.b.Eng.SchemaRegistry().All(engine.SchemaID(name))
	if err != nil {
		return nil, err
	}
	out := []schemaResponseJSON{}
	for _, v := range all {
		if v.Deleted {
			out = out[:0]
			continue
		}
		out = append(out, schemaResponse(v))
	}
	return getAllSchemasResponse{GetSchemaResponses: out}, nil
}

// deleteSchema deletes the topic's schema (with force, every version;
// otherwise a deletion marker, as Pulsar does) and answers Pulsar's
// DeleteSchemaResponse: the version the deletion took, -1 for none.
func deleteSchema(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	v, err := rq.b.Eng.DeleteSchema(name.Full, rq.flag("force"))
	if err != nil {
		return nil, err
	}
	return schemaVersionResponse{Version: v}, nil
}

// postSchemaPayload is Pulsar's PostSchemaPayload: the body of an upload,
// a compatibility check and a version lookup.
type postSchemaPayload struct {
	Type       *string           `json:"type"`
	Schema     string            `json:"schema"`
	Properties map[string]string `json:"properties"`
}

// schemaBody reads a PostSchemaPayload: the schema is the UTF-8 bytes of
// its "schema" string, its type Pulsar's SchemaType name. A body that is
// not one, or names no known type, is a 400; BYTES, the default that needs
// no upload, is refused with 406 as Pulsar 4.x refuses it. A KEY_VALUE
// schema comes in its string form (keyValueData).
func (rq *adminReq) schemaBody() (schema.Schema, error) {
	var p postSchemaPayload
	if !rq.hasBody() {
		return schema.Schema{}, engine.RestErr(http.StatusBadRequest, "Missing schema payload")
	}
	if err := rq.decode(&p); err != nil {
		return schema.Schema{}, err
	}
	if p.Type == nil {
		return schema.Schema{}, engine.RestErr(http.StatusBadRequest, "Missing schema type")
	}
	if *p.Type == "BYTES" {
		return schema.Schema{}, engine.RestErr(http.StatusNotAcceptable, "Do not upload a BYTES schema, because it's the default schema type")
	}
	typ, ok := schemaTypeByName(*p.Type)
	if !ok {
		return schema.Schema{}, engine.RestErr(http.StatusBadRequest, "Invalid schema type %q", *p.Type)
	}
	data := []byte(p.Schema)
	if typ == schema.KeyValue {
		var err error
		if data, err = keyValueData(p.Schema); err != nil {
			return schema.Schema{}, err
		}
	}
	return schema.Schema{Type: typ, Data: data, Props: p.Properties}, nil
}

// schemaTypeByName finds the type of Pulsar's SchemaType name ("AVRO").
func schemaTypeByName(n string) (schema.Type, bool) {
	for t := schema.None; t <= schema.AutoConsume; t++ {
		if t.String() == n {
			return t, true
		}
	}
	return 0, false
}

// accepted answers v as JSON with 202 Accepted, as Pulsar answers the
// schema resource's POSTs.
func accepted(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return rawReply{contentType: "application/json", body: b, status: http.StatusAccepted}, nil
}

// schemaRefusal maps a registry refusal to Pulsar's status: 409 for an
// incompatible schema, 422 for invalid schema data.
func schemaRefusal(err error) error {
	switch {
	case errors.Is(err, schema.ErrIncompatible):
		return engine.RestErr(http.StatusConflict, "%v", err)
	case errors.Is(err, schema.ErrInvalid):
		return engine.RestErr(http.StatusUnprocessableEntity, "%v", err)
	}
	return err
}

// topicSchema returns the request's topic and the schema in its body.
func (rq *adminReq) topicSchema() (engine.TopicName, schema.Schema, error) {
	name, err := rq.topic()
	if err != nil {
		return engine.TopicName{}, schema.Schema{}, err
	}
	s, err := rq.schemaBody()
	return name, s, err
}

// postSchema registers the schema in the body (Pulsar's putSchemaIfAbsent:
// one already registered since the latest deletion keeps its version; a new
// one must be compatible under the topic's strategy, whatever the
// auto-update policy, which only governs producers) and answers 202 with
// Pulsar's PostSchemaResponse, {"version": {"version": N}}.
func postSchema(rq *adminReq) (any, error) {
	name, s, err := rq.topicSchema()
	if err != nil {
		return nil, err
	}
	v, err := rq.b.Eng.SchemaRegistry().Register(engine.SchemaID(name), s)
	if err != nil {
		return nil, schemaRefusal(err)
	}
	return accepted(postSchemaResponse{Version: schemaVersionResponse{Version: v}})
}

// testSchemaCompatibility checks the schema in the body against the topic's
// (the registry's IsCompatible, under the strategy in effect) without
// registering it, and answers 202 with Pulsar's IsCompatibilityResponse.
// An incompatible schema is {"compatibility": false} (Pulsar's broker
// answers it with an error status); invalid schema data is a 422.
func testSchemaCompatibility(rq *adminReq) (any, error) {
	name, s, err := rq.topicSchema()
	if err != nil {
		return nil, err
	}
	id := engine.SchemaID(name)
	err = rq.b.Eng.SchemaRegistry().IsCompatible(id, s)
	if err != nil && !errors.Is(err, schema.ErrIncompatible) {
		return nil, schemaRefusal(err)
	}
	return accepted(compatibilityResponse{Compatibility: err == nil, Strategy: rq.b.Eng.SchemaRegistry().Effective(id).Strategy.String()})
}

// getSchemaVersion answers 202 with the version of the schema in the body
// (Pulsar's LongSchemaVersionResponse), -1 when it is not registered since
// the latest deletion.
func getSchemaVersion(rq *adminReq) (any, error) {
	name, s, err := rq.topicSchema()
	if err != nil {
		return nil, err
	}
	v, err := rq.b.Eng.SchemaRegistry().FindVersion(engine.SchemaID(name), s)
	if err != nil {
		return nil, err
	}
	return accepted(schemaVersionResponse{Version: v})
}
