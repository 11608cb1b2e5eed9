package integration

import (
	"testing"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type schemaUser struct {
	Name string `json:"name" avro:"name"`
	Age  int32  `json:"age" avro:"age"`
}

const (
	userDef = `{"type":"record","name":"User","namespace":"it","fields":[` +
		`{"name":"name","type":"string"},{"name":"age","type":"int","default":0}]}`
	// userDefRespaced is userDef with other whitespace and a doc: the same schema.
	userDefRespaced = `{"type": "record", "name": "User", "namespace": "it", "doc": "d", "fields": [
		{"name": "name", "type": "string"}, {"name": "age", "type": "int", "default": 0}]}`
	// userDefIncompatible changes the type of name: no strategy but
	// ALWAYS_COMPATIBLE accepts it.
	userDefIncompatible = `{"type":"record","name":"User","namespace":"it","fields":[` +
		`{"name":"name","type":"long"},{"name":"age","type":"int","default":0}]}`
)

// TestOfficialSchemaRegistry: the official client's JSON and Avro producers
// register their schema once (a second producer with the same schema sends
// the same version), a producer with an incompatible schema is refused with
// IncompatibleSchema, and a consumer with the schema decodes the values.
// Producers batch: the official client (v0.19.0) writes schema_version into
// the metadata of batches only, not of messages sent with DisableBatching.
func TestOfficialSchemaRegistry(t *testing.T) {
	kinds := map[string]func(def string) official.Schema{
		"json": func(def string) official.Schema { return official.NewJSONSchema(def, nil) },
		"avro": func(def string) official.Schema { return official.NewAvroSchema(def, nil) },
	}
	for name, mk := range kinds {
		t.Run(name, func(t *testing.T) {
			b := startStub(t)
			client := officialClient(t, b.URL())
			topic := newTopic(t)
			cons, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s", Schema: mk(userDef)})
			require.NoError(t, err)
			defer cons.Close()

			for i, def := range []string{userDef, userDefRespaced} {
				prod, err := client.CreateProducer(official.ProducerOptions{Topic: topic, Schema: mk(def)})
				require.NoError(t, err, "producer %d", i)
				_, err = prod.Send(ctxT(t), &official.ProducerMessage{Value: &schemaUser{Name: "u", Age: int32(i)}})
				require.NoError(t, err)
				prod.Close()
			}

			_, err = client.CreateProducer(official.ProducerOptions{Topic: topic, Schema: mk(userDefIncompatible)})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "IncompatibleSchema")

			// A consumer whose schema cannot read the topic's is refused too.
			_, err = client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s2", Schema: mk(userDefIncompatible)})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "IncompatibleSchema")

			for i, m := range receiveN(t, cons, 2) {
				assert.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 0}, m.SchemaVersion(), "message %d: registered once, version 0", i)
				var u schemaUser
				require.NoError(t, m.GetSchemaValue(&u))
				assert.Equal(t, schemaUser{Name: "u", Age: int32(i)}, u)
				require.NoError(t, cons.Ack(m))
			}
		})
	}
}

// TestOfficialSchemaEvolution: a compatible new Avro schema gets version 1,
// and a consumer of the old schema reads messages of both versions (the
// client fetches each writer schema with GET_SCHEMA by version).
func TestOfficialSchemaEvolution(t *testing.T) {
	b := startStub(t)
	client := officialClient(t, b.URL())
	topic := newTopic(t)
	const v0 = `{"type":"record","name":"User","namespace":"it","fields":[{"name":"name","type":"string"}]}`
	cons, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s",
		Schema: official.NewAvroSchema(userDef, nil)})
	require.NoError(t, err)
	defer cons.Close()

	for _, def := range []string{v0, userDef} {
		prod, err := client.CreateProducer(official.ProducerOptions{Topic: topic, Schema: official.NewAvroSchema(def, nil)})
		require.NoError(t, err, def)
		_, err = prod.Send(ctxT(t), &official.ProducerMessage{Value: &schemaUser{Name: "n", Age: 7}})
		require.NoError(t, err)
		prod.Close()
	}
	msgs := receiveN(t, cons, 2)
	// The consumer's schema (with age, defaulted) was registered first as
	// version 0; v0 (without age) is a compatible version 1.
	assert.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 1}, msgs[0].SchemaVersion())
	assert.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 0}, msgs[1].SchemaVersion())
	// Each message decodes with its writer's schema, fetched by version:
	// the first has no age.
	for i, want := range []schemaUser{{Name: "n"}, {Name: "n", Age: 7}} {
		var u schemaUser
		require.NoError(t, msgs[i].GetSchemaValue(&u))
		assert.Equal(t, want, u)
		require.NoError(t, cons.Ack(msgs[i]))
	}
}
