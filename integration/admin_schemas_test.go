package integration

import (
	"net/http"
	"testing"

	official "github.com/apache/pulsar-client-go/pulsar"
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
