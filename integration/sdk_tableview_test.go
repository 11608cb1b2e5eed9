package integration

import (
	"context"
	"reflect"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/pulsar"
)

// tvCall is one call of a table view listener, of either client.
type tvCall struct {
	key   string
	value any
}

// tvCalls returns a listener that sends its calls to the channel returned.
func tvCalls() (func(string, any) error, chan tvCall) {
	ch := make(chan tvCall, 100)
	return func(k string, v any) error { ch <- tvCall{k, v}; return nil }, ch
}

// nextCall waits for the next listener call.
func nextCall(t *testing.T, ch <-chan tvCall) tvCall {
	t.Helper()
	select {
	case c := <-ch:
		return c
	case <-time.After(15 * time.Second):
		t.Fatal("no table view update")
		return tvCall{}
	}
}

// tvCase is a schema (or none) as both clients build it, values of it, and
// what pulsargo's view (SchemaValueType sdkType) and the official one
// (offType: it decodes strings into a **string only) store for a value.
type tvCase struct {
	name       string
	official   func() official.Schema // nil: no schema
	ours       func() pulsar.Schema
	values     [4]any
	sdkType    reflect.Type
	offType    reflect.Type
	sdkStored  func(v any) any
	offStored  func(v any) any
	partitions int
}

func tvCases() []tvCase {
	same := func(v any) any { return v }
	str := func(v any) any { s := v.(string); return &s }
	users := [4]any{crossUser{"ann", 1}, crossUser{"bob", 2}, crossUser{"cid", 3}, crossUser{"dee", 4}}
	return []tvCase{
		{name: "string", official: func() official.Schema { return official.NewStringSchema(nil) },
			ours:   func() pulsar.Schema { return pulsar.NewStringSchema(nil) },
			values: [4]any{"v1", "v2", "v3", "v4"}, sdkType: reflect.TypeOf(""), offType: reflect.TypeOf(new(string)),
			sdkStored: same, offStored: str},
		{name: "json-partitioned", official: func() official.Schema { return official.NewJSONSchema(userDef, nil) },
			ours:   func() pulsar.Schema { return pulsar.NewJSONSchema(userDef, nil) },
			values: users, sdkType: reflect.TypeOf(crossUser{}), offType: reflect.TypeOf(crossUser{}),
			sdkStored: same, offStored: same, partitions: 3},
		{name: "avro", official: func() official.Schema { return official.NewAvroSchema(userDef, nil) },
			ours:   func() pulsar.Schema { return pulsar.NewAvroSchema(userDef, nil) },
			values: users, sdkType: reflect.TypeOf(crossUser{}), offType: reflect.TypeOf(crossUser{}),
			sdkStored: same, offStored: same},
		{name: "no-schema", values: [4]any{[]byte("b1"), []byte("b2"), []byte("b3"), []byte("b4")},
			sdkType: nil, offType: reflect.TypeOf([]byte(nil)), sdkStored: same, offStored: same},
	}
}

// message is a keyed value for the official producer (v nil: a tombstone).
func officialMessage(tc tvCase, key string, v any) *official.ProducerMessage {
	m := &official.ProducerMessage{Key: key}
	switch {
	case v == nil:
	case tc.official == nil:
		m.Payload = v.([]byte)
	default:
		m.Value = v
	}
	return m
}

func sdkMessage(tc tvCase, key string, v any) *pulsar.ProducerMessage {
	m := &pulsar.ProducerMessage{Key: key}
	switch {
	case v == nil:
	case tc.ours == nil:
		m.Payload = v.([]byte)
	default:
		m.Value = v
	}
	return m
}

func tvTopic(t *testing.T, tc tvCase, b interface{ CreatePartitionedTopic(string, int) error }) string {
	topic := newTopic(t)
	if tc.partitions > 0 {
		require.NoError(t, b.CreatePartitionedTopic(topic, tc.partitions))
	}
	return topic
}

// The official producer writes keyed values (batched, with each schema and
// without, to a partitioned topic too) and tombstones; pulsargo's table
// view holds the latest value per key when it is created and follows what
// comes after.
func TestTableViewOfficialProducerToSDK(t *testing.T) {
	b := startStub(t)
	oc := officialClient(t, b.URL())
	sdk, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL(), OperationTimeout: 10 * time.Second, Logger: sdkLogger()})
	require.NoError(t, err)
	t.Cleanup(sdk.Close)
	for _, tc := range tvCases() {
		t.Run(tc.name, func(t *testing.T) {
			topic := tvTopic(t, tc, b)
			po := official.ProducerOptions{Topic: topic}
			var so pulsar.TableViewOptions
			if tc.official != nil {
				po.Schema, so.Schema = tc.official(), tc.ours()
			}
			p, err := oc.CreateProducer(po)
			require.NoError(t, err)
			defer p.Close()
			send := func(key string, v any) {
				p.SendAsync(context.Background(), officialMessage(tc, key, v), func(_ official.MessageID, _ *official.ProducerMessage, err error) {
					assert.NoError(t, err)
				})
			}
			send("a", tc.values[0])
			send("b", tc.values[1])
			send("a", tc.values[2])
			send("b", nil)
			require.NoError(t, p.FlushWithCtx(ctxT(t)))

			so.Topic, so.SchemaValueType = topic, tc.sdkType
			tv, err := sdk.CreateTableView(so)
			require.NoError(t, err)
			defer tv.Close()
			assert.Equal(t, map[string]any{"a": tc.sdkStored(tc.values[2])}, tv.Entries())

			listener, calls := tvCalls()
			require.NoError(t, tv.ForEachAndListen(listener))
			assert.Equal(t, tvCall{"a", tc.sdkStored(tc.values[2])}, nextCall(t, calls))
			send("c", tc.values[3])
			require.NoError(t, p.FlushWithCtx(ctxT(t)))
			assert.Equal(t, tvCall{"c", tc.sdkStored(tc.values[3])}, nextCall(t, calls))
			send("c", nil)
			require.NoError(t, p.FlushWithCtx(ctxT(t)))
			got := nextCall(t, calls)
			assert.Equal(t, "c", got.key)
			assert.False(t, tv.ContainsKey("c"), "a tombstone removes the key")
			assert.Equal(t, []string{"a"}, tv.Keys())
		})
	}
}

// pulsargo's producer writes keyed values (with each schema, to a
// partitioned topic too) and tombstones; the official client's table view
// holds them. (Not without a schema: the official view then panics on its
// first message, and with a BYTES schema its reader is refused on a topic
// a schemaless producer made active, IncompatibleSchema.)
func TestTableViewSDKProducerToOfficial(t *testing.T) {
	b := startStub(t)
	oc := officialClient(t, b.URL())
	sdk, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL(), OperationTimeout: 10 * time.Second, Logger: sdkLogger()})
	require.NoError(t, err)
	t.Cleanup(sdk.Close)
	for _, tc := range tvCases() {
		if tc.official == nil {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			topic := tvTopic(t, tc, b)
			po := pulsar.ProducerOptions{Topic: topic}
			oo := official.TableViewOptions{Topic: topic, SchemaValueType: tc.offType, Logger: quietLogger()}
			po.Schema, oo.Schema = tc.ours(), tc.official()
			p, err := sdk.CreateProducer(po)
			require.NoError(t, err)
			defer p.Close()
			send := func(key string, v any) {
				_, err := p.Send(context.Background(), sdkMessage(tc, key, v))
				require.NoError(t, err)
			}
			send("a", tc.values[0])
			send("b", tc.values[1])
			send("a", tc.values[2])
			send("b", nil)

			tv, err := oc.CreateTableView(oo)
			require.NoError(t, err)
			defer tv.Close()
			assert.Equal(t, 1, tv.Size())
			assert.Equal(t, tc.offStored(tc.values[2]), tv.Get("a"))
			assert.False(t, tv.ContainsKey("b"))

			// The official view appends a listener under another lock than
			// the one it reads them under: Size, called after, orders the
			// append before the next update (the race detector sees it).
			listener, calls := tvCalls()
			require.NoError(t, tv.ForEachAndListen(listener))
			assert.Equal(t, 1, tv.Size())
			assert.Equal(t, tvCall{"a", tc.offStored(tc.values[2])}, nextCall(t, calls))
			send("c", tc.values[3])
			assert.Equal(t, tvCall{"c", tc.offStored(tc.values[3])}, nextCall(t, calls))
			send("c", nil)
			assert.Equal(t, "c", nextCall(t, calls).key)
			assert.False(t, tv.ContainsKey("c"), "a tombstone removes the key")
			assert.Equal(t, 1, tv.Size())
		})
	}
}
