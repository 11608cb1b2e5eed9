package integration

import (
	"net/http"
	"testing"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/stretchr/testify/require"
)

// TestAdminSchemas: a schema the official client's producer registered over
// the binary protocol is what the official admin client reads over HTTP
// (type, definition, version); deleting it over HTTP removes it, and the
// next producer with a different schema registers a new version.
func TestAdminSchemas(t *testing.T) {
	e := newAdminEnv(t)
	client := officialClient(t, e.url)
	topic := newTopic(t)
	prod, err := client.CreateProducer(official.ProducerOptions{Topic: topic, Schema: official.NewJSONSchema(userDef, nil)})
	require.NoError(t, err)
	prod.Close()

	info, err := e.admin.Schemas().GetSchemaInfoWithVersion(topic)
	require.NoError(t, err)
	require.Equal(t, "JSON", info.SchemaInfo.Type)
	// The definition as the client sent it (it writes the full name).
	require.Contains(t, string(info.SchemaInfo.Schema), `"it.User"`)
	require.Contains(t, string(info.SchemaInfo.Schema), `"age"`)
	require.EqualValues(t, 0, info.Version)

	require.NoError(t, e.admin.Schemas().DeleteSchema(topic))
	_, err = e.admin.Schemas().GetSchemaInfo(topic)
	wantStatus(t, err, http.StatusNotFound, "schema after delete")

	// Deleted: any schema is accepted again, numbered after the deletion.
	prod, err = client.CreateProducer(official.ProducerOptions{Topic: topic, Schema: official.NewStringSchema(nil)})
	require.NoError(t, err)
	prod.Close()
	info, err = e.admin.Schemas().GetSchemaInfoWithVersion(topic)
	require.NoError(t, err)
	require.Equal(t, "STRING", info.SchemaInfo.Type)
	require.EqualValues(t, 2, info.Version)
}

// TestAdminSchemaUpload drives the rest of the schema resource through the
// official admin client (upload, version lookup, compatibility check, by
// version, all versions, force delete) and checks its effect over the
// binary protocol: a producer with the uploaded schema writes its version,
// one whose schema the upload makes incompatible is refused.
func TestAdminSchemaUpload(t *testing.T) {
	e := newAdminEnv(t)
	client := officialClient(t, e.url)
	topic := newTopic(t)
	v1 := utils.PostSchemaPayload{SchemaType: "AVRO", Schema: userDef, Properties: map[string]string{"owner": "it"}}
	v2 := utils.PostSchemaPayload{SchemaType: "AVRO", Schema: userDefIncompatible}

	require.NoError(t, e.admin.Schemas().CreateSchemaByPayload(topic, v1))
	ver, err := e.admin.Schemas().GetVersionByPayload(topic, v1)
	require.NoError(t, err)
	require.EqualValues(t, 0, ver)
	ver, err = e.admin.Schemas().GetVersionByPayload(topic, v2)
	require.NoError(t, err)
	require.EqualValues(t, -1, ver, "version of a schema never uploaded")

	ok, err := e.admin.Schemas().TestCompatibilityWithPostSchemaPayload(topic, v1)
	require.NoError(t, err)
	require.True(t, ok.IsCompatibility)
	require.Equal(t, utils.SchemaCompatibilityStrategyFull, ok.SchemaCompatibilityStrategy)
	bad, err := e.admin.Schemas().TestCompatibilityWithPostSchemaPayload(topic, v2)
	require.NoError(t, err)
	require.False(t, bad.IsCompatibility, "a field whose type changes is not FULL compatible")
	wantStatus(t, e.admin.Schemas().CreateSchemaByPayload(topic, v2), http.StatusConflict, "upload an incompatible schema")

	// Over the binary protocol: the uploaded schema is the topic's.
	cons, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s", Schema: official.NewAvroSchema(userDef, nil)})
	require.NoError(t, err)
	defer cons.Close()
	prod, err := client.CreateProducer(official.ProducerOptions{Topic: topic, Schema: official.NewAvroSchema(userDef, nil)})
	require.NoError(t, err)
	_, err = prod.Send(ctxT(t), &official.ProducerMessage{Value: &schemaUser{Name: "u", Age: 7}})
	require.NoError(t, err)
	prod.Close()
	m := receiveN(t, cons, 1)[0]
	require.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 0}, m.SchemaVersion(), "the producer's messages carry the uploaded version")
	_, err = client.CreateProducer(official.ProducerOptions{Topic: topic, Schema: official.NewAvroSchema(userDefIncompatible, nil)})
	require.ErrorContains(t, err, "IncompatibleSchema")

	// A compatible second version, then every version and each by number.
	v3 := utils.PostSchemaPayload{SchemaType: "AVRO"}
	v3.Schema = `{"type":"record","name":"User","namespace":"it","fields":[` +
		`{"name":"name","type":"string"},{"name":"age","type":"int","default":0},{"name":"city","type":"string","default":""}]}`
	require.NoError(t, e.admin.Schemas().CreateSchemaByPayload(topic, v3))
	all, err := e.admin.Schemas().GetAllSchemas(topic)
	require.NoError(t, err)
	require.Len(t, all, 2)
	require.EqualValues(t, 1, all[1].Version)
	require.Contains(t, string(all[1].SchemaInfo.Schema), `"city"`)
	first, err := e.admin.Schemas().GetSchemaInfoByVersion(topic, 0)
	require.NoError(t, err)
	require.Equal(t, "AVRO", first.Type)
	require.Equal(t, "it", first.Properties["owner"])
	_, err = e.admin.Schemas().GetSchemaInfoByVersion(topic, 9)
	wantStatus(t, err, http.StatusNotFound, "a version that does not exist")

	// Force delete removes every version: any schema is accepted again, as
	// version 0.
	require.NoError(t, e.admin.Schemas().ForceDeleteSchema(topic))
	all, err = e.admin.Schemas().GetAllSchemas(topic)
	require.NoError(t, err)
	require.Empty(t, all)
	prod, err = client.CreateProducer(official.ProducerOptions{Topic: topic, Schema: official.NewStringSchema(nil)})
	require.NoError(t, err)
	prod.Close()
	info, err := e.admin.Schemas().GetSchemaInfoWithVersion(topic)
	require.NoError(t, err)
	require.Equal(t, "STRING", info.SchemaInfo.Type)
	require.EqualValues(t, 0, info.Version)
}
