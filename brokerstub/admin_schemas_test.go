package brokerstub

import (
	"strings"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"

	"github.com/pulsargo/sdk/brokerstub/internal/schema"
	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

const (
	schemasPath = "/admin/v2/schemas/public/default/st"
	avroUser    = `{"type":"record","name":"User","fields":[{"name":"name","type":"string"}]}`
	avroUserAge = `{"type":"record","name":"User","fields":[{"name":"name","type":"string"},{"name":"age","type":"int"}]}`
)

// schemaPayload is a PostSchemaPayload body.
func schemaPayload(typ, def string) string {
	return `{"type":"` + typ + `","schema":` + jsonString(def) + `,"properties":{"k":"v"}}`
}

func jsonString(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

// TestAdminSchemaResource drives the schema resource as the official admin
// clients call it: upload (202 with the version), the version of a schema,
// the compatibility check under the strategy in effect, every version, and
// Pulsar's status codes for bad payloads and refused schemas.
func TestAdminSchemaResource(t *testing.T) {
	b := RunT(t)
	steps := []struct {
		method, path, body string
		code               int
		want               string
	}{
		{"GET", schemasPath + "/schemas", "", 200, `{"getSchemaResponses":[]}`},
		{"POST", schemasPath + "/version", schemaPayload("AVRO", avroUser), 202, `{"version":-1}`},
		{"POST", schemasPath + "/compatibility", schemaPayload("AVRO", avroUser), 202, `{"compatibility":true,"schemaCompatibilityStrategy":"FULL"}`},
		{"POST", schemasPath + "/schema", schemaPayload("AVRO", avroUser), 202, `{"version":{"version":0}}`},
		{"POST", schemasPath + "/schema", schemaPayload("AVRO", avroUser), 202, `{"version":{"version":0}}`},
		{"GET", schemasPath + "/schema", "", 200, `"type":"AVRO"`},
		{"GET", schemasPath + "/schema/0", "", 200, `"properties":{"k":"v"}`},
		{"POST", schemasPath + "/version", schemaPayload("AVRO", avroUser), 202, `{"version":0}`},
		{"POST", schemasPath + "/version", schemaPayload("JSON", avroUser), 202, `{"version":-1}`},
		// A field without a default breaks FULL: not compatible, not stored.
		{"POST", schemasPath + "/compatibility", schemaPayload("AVRO", avroUserAge), 202, `{"compatibility":false,"schemaCompatibilityStrategy":"FULL"}`},
		{"POST", schemasPath + "/compatibility", schemaPayload("STRING", ""), 202, `{"compatibility":false`},
		{"POST", schemasPath + "/schema", schemaPayload("AVRO", avroUserAge), 409, `"reason"`},
		{"POST", schemasPath + "/schema", schemaPayload("AVRO", `{"type":`), 422, `"reason"`},
		{"POST", schemasPath + "/compatibility", schemaPayload("AVRO", `{"type":`), 422, `"reason"`},
		{"POST", schemasPath + "/schema", schemaPayload("INT32", "not empty"), 422, `"reason"`},
		{"POST", schemasPath + "/schema", schemaPayload("NO_SUCH_TYPE", ""), 400, `"reason"`},
		{"POST", schemasPath + "/schema", `{"schema":""}`, 400, `"reason"`},
		{"POST", schemasPath + "/schema", `{"type":`, 400, `"reason"`},
		{"POST", schemasPath + "/version", "", 400, `"reason"`},
		{"POST", schemasPath + "/schema", schemaPayload("KEY_VALUE", "{}"), 422, `"reason"`},
		{"POST", schemasPath + "/schema", schemaPayload("KEY_VALUE", `{"key":"","value":{"type":`), 422, `"reason"`},
		{"POST", "/admin/v2/schemas/public/nope/st/schema", schemaPayload("STRING", ""), 404, `"reason"`},
		{"GET", schemasPath + "/schemas", "", 200, `"version":0`},
		{"DELETE", schemasPath + "/schema", "", 200, `{"version":1}`},
		{"GET", schemasPath + "/schema", "", 404, `"reason"`},
		{"GET", schemasPath + "/schemas", "", 200, `{"getSchemaResponses":[]}`},
		{"POST", schemasPath + "/version", schemaPayload("AVRO", avroUser), 202, `{"version":-1}`},
		// After the deletion nothing is checked, and numbering goes on.
		{"POST", schemasPath + "/schema", schemaPayload("STRING", ""), 202, `{"version":{"version":2}}`},
		{"GET", schemasPath + "/schemas", "", 200, `"version":2,"type":"STRING"`},
		{"DELETE", schemasPath + "/schema?force=true", "", 200, `{"version":-1}`},
		{"POST", schemasPath + "/schema", schemaPayload("BYTES", ""), 406, `"reason"`},
		{"POST", schemasPath + "/schema", schemaPayload("STRING", ""), 202, `{"version":{"version":0}}`},
	}
	for _, s := range steps {
		code, body := adminDo(t, b, s.method, s.path, s.body)
		if code != s.code || !strings.Contains(body, s.want) {
			t.Errorf("%s %s %s: got %d %s, want %d containing %s", s.method, s.path, s.body, code, body, s.code, s.want)
		}
	}
}

// TestAdminSchemaUploadIgnoresAutoUpdate: an upload over the admin API is
// registered when producers may not register new schemas
// (isAllowAutoUpdateSchema=false only governs producers), and a producer
// with that schema is then admitted.
func TestAdminSchemaUploadIgnoresAutoUpdate(t *testing.T) {
	b := RunT(t, Options{DisableSchemaAutoUpdate: true})
	if code, body := adminDo(t, b, "POST", schemasPath+"/schema", schemaPayload("AVRO", avroUser)); code != 202 {
		t.Fatalf("upload with auto update disabled: %d %s", code, body)
	}
	if code, body := adminDo(t, b, "POST", schemasPath+"/compatibility", schemaPayload("AVRO", avroUser)); code != 202 ||
		!strings.Contains(body, `"compatibility":true`) {
		t.Fatalf("compatibility of the uploaded schema: %d %s", code, body)
	}
	if _, err := b.eng.AddProducerSchema(mustParseTopic(t, "persistent://public/default/st"), protoSchema(avroUser)); err != nil {
		t.Fatalf("producer with the uploaded schema: %v", err)
	}
	if _, err := b.eng.AddProducerSchema(mustParseTopic(t, "persistent://public/default/st"), protoSchema(avroUserAge)); err == nil {
		t.Fatal("producer with a new schema was admitted with auto update disabled")
	}
}

func mustParseTopic(t *testing.T, s string) engine.TopicName {
	t.Helper()
	n, err := engine.ParseTopic(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func protoSchema(avro string) *proto.Schema {
	typ := proto.Schema_Avro
	return &proto.Schema{Name: gproto.String("st"), Type: &typ, SchemaData: []byte(avro)}
}

// TestAdminSchemaKeyValue: a KEY_VALUE schema uploads and reads back in
// Pulsar's string form, {"key": ..., "value": ...}, with its parts' types in
// the properties; the registry checks its value part under the strategy
// like any AVRO schema.
func TestAdminSchemaKeyValue(t *testing.T) {
	b := RunT(t)
	const path = "/admin/v2/schemas/public/default/kv"
	kv := func(value string) string {
		return `{"type":"KEY_VALUE","schema":` + jsonString(`{"key":"","value":`+value+`}`) +
			`,"properties":{"key.schema.type":"STRING","value.schema.type":"AVRO","kv.encoding.type":"SEPARATED"}}`
	}
	if code, body := adminDo(t, b, "POST", path+"/schema", kv(avroUser)); code != 202 {
		t.Fatalf("upload: %d %s", code, body)
	}
	code, body := adminDo(t, b, "GET", path+"/schema", "")
	want := `"data":` + jsonString(`{"key":"","value":`+avroUser+`}`)
	if code != 200 || !strings.Contains(body, `"type":"KEY_VALUE"`) || !strings.Contains(body, want) {
		t.Fatalf("get: %d %s, want %s", code, body, want)
	}
	// The same upload again keeps its version; a value that breaks FULL is
	// refused; the string form, spaced otherwise, is the same schema.
	if code, body := adminDo(t, b, "POST", path+"/version", kv(avroUser)); code != 202 || body != `{"version":0}` {
		t.Fatalf("version: %d %s", code, body)
	}
	if code, body := adminDo(t, b, "POST", path+"/schema", kv(avroUserAge)); code != 409 {
		t.Fatalf("incompatible value: %d %s", code, body)
	}
	spaced := strings.ReplaceAll(avroUser, ",", ", ")
	if code, body := adminDo(t, b, "POST", path+"/version", kv(spaced)); code != 202 || body != `{"version":0}` {
		t.Fatalf("version of the spaced form: %d %s", code, body)
	}
	// Over the binary protocol the data is the binary encoding.
	got, err := b.eng.SchemaRegistry().Get(engine.SchemaID(mustParseTopic(t, "persistent://public/default/kv")), 0)
	if err != nil {
		t.Fatal(err)
	}
	k, v, err := schema.SplitKeyValue(got.Schema)
	if err != nil || k.Type != schema.String || len(k.Data) != 0 || v.Type != schema.Avro || string(v.Data) != avroUser {
		t.Fatalf("stored parts: %v %q, %v %q, %v", k.Type, k.Data, v.Type, v.Data, err)
	}
}
