package pulsar

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/pulsar/log"
)

// A table view holds the latest value of each key, read from the earliest
// message (batched or not): a later value replaces an earlier one, an
// empty payload removes the key, a message without a key is ignored; it
// returns once it holds what the topic had, then follows new messages.
func TestTableViewLatestValuePerKey(t *testing.T) {
	for _, batched := range []bool{false, true} {
		t.Run(map[bool]string{false: "single", true: "batched"}[batched], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := newCSEnv(t)
				topic := csTopic()
				p, err := v.c.CreateProducer(ProducerOptions{Topic: topic, Schema: NewStringSchema(nil), DisableBatching: !batched})
				require.NoError(t, err)
				defer p.Close()
				sendKeyed(t, p, "a", &ProducerMessage{Value: "a1"})
				sendKeyed(t, p, "b", &ProducerMessage{Value: "b1"})
				sendKeyed(t, p, "a", &ProducerMessage{Value: "a2"})
				sendKeyed(t, p, "", &ProducerMessage{Value: "no key"})
				sendKeyed(t, p, "c", &ProducerMessage{Value: "c1"})
				sendKeyed(t, p, "c", &ProducerMessage{}) // tombstone
				require.NoError(t, p.Flush())

				tv, err := v.c.CreateTableView(TableViewOptions{Topic: topic, Schema: NewStringSchema(nil), SchemaValueType: reflect.TypeOf("")})
				require.NoError(t, err)
				defer tv.Close()
				assert.Equal(t, map[string]any{"a": "a2", "b": "b1"}, tv.Entries())
				assert.Equal(t, []string{"a", "b"}, tv.Keys())
				assert.Equal(t, 2, tv.Size())
				assert.False(t, tv.IsEmpty())
				assert.True(t, tv.ContainsKey("a"))
				assert.False(t, tv.ContainsKey("c"))
				assert.False(t, tv.ContainsKey(""), "a message without a key is ignored")
				assert.Nil(t, tv.Get("c"))

				events := tvListener(t, tv)
				seen := map[string]any{}
				for range 2 {
					ev := nextEvent(t, events)
					seen[ev.key] = ev.value
				}
				assert.Equal(t, map[string]any{"a": "a2", "b": "b1"}, seen, "ForEachAndListen goes through the entries first")

				sendKeyed(t, p, "b", &ProducerMessage{Value: "b2"})
				sendKeyed(t, p, "a", &ProducerMessage{})
				sendKeyed(t, p, "d", &ProducerMessage{Value: "d1"})
				require.NoError(t, p.Flush())
				assert.Equal(t, tvEvent{"b", "b2"}, nextEvent(t, events))
				assert.Equal(t, tvEvent{"a", ""}, nextEvent(t, events), "a removal hands the zero value")
				assert.Equal(t, tvEvent{"d", "d1"}, nextEvent(t, events))
				assert.Equal(t, map[string]any{"b": "b2", "d": "d1"}, tv.Entries())
			})
		})
	}
}

// Without a Schema the values are the payloads; Entries is a copy.
func TestTableViewWithoutSchema(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p, err := v.c.CreateProducer(ProducerOptions{Topic: topic, DisableBatching: true})
		require.NoError(t, err)
		defer p.Close()
		sendKeyed(t, p, "k", &ProducerMessage{Payload: []byte{0, 1, 2}})
		tv, err := v.c.CreateTableView(TableViewOptions{Topic: topic})
		require.NoError(t, err)
		defer tv.Close()
		assert.Equal(t, []byte{0, 1, 2}, tv.Get("k"))
		e := tv.Entries()
		delete(e, "k")
		assert.True(t, tv.ContainsKey("k"), "Entries returned the view's own map")
	})
}

// Options the official client refuses are refused, and so is a value type
// without a Schema (the official client panics on its first message).
func TestTableViewOptionsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		for name, o := range map[string]TableViewOptions{
			"no topic":               {},
			"schema without type":    {Topic: csTopic(), Schema: NewStringSchema(nil)},
			"type without schema":    {Topic: csTopic(), SchemaValueType: reflect.TypeOf("")},
			"schema that is invalid": {Topic: csTopic(), Schema: NewJSONSchema("{not json", nil), SchemaValueType: reflect.TypeOf(1)},
		} {
			tv, err := v.c.CreateTableView(o)
			assert.Nil(t, tv, name)
			assert.Error(t, err, name)
			if name != "schema that is invalid" {
				assert.ErrorIs(t, err, ErrInvalidOptions, name)
			} else {
				var se *SchemaError
				assert.ErrorAs(t, err, &se, name)
			}
		}
		v.c.Close()
		_, err := v.c.CreateTableView(TableViewOptions{Topic: csTopic()})
		assert.ErrorIs(t, err, ErrClientClosed)
	})
}

// A value that does not decode with the view's schema is logged and
// skipped: the key keeps its previous value (or stays absent), and
// listeners are not called for it. The official client stores the zero
// value instead.
func TestTableViewSkipsValueThatDoesNotDecode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		// A Payload set beside a Schema is sent as it is, with the
		// schema's version.
		p, err := v.c.CreateProducer(ProducerOptions{Topic: topic, Schema: NewInt64Schema(nil), DisableBatching: true})
		require.NoError(t, err)
		defer p.Close()
		sendKeyed(t, p, "k", &ProducerMessage{Value: int64(7)})
		sendKeyed(t, p, "k", &ProducerMessage{Payload: []byte("bad")})
		sendKeyed(t, p, "j", &ProducerMessage{Payload: []byte("bad")})

		rec := &logRecorder{}
		tv, err := v.c.CreateTableView(TableViewOptions{Topic: topic, Schema: NewInt64Schema(nil),
			SchemaValueType: reflect.TypeOf(int64(0)), Logger: log.NewLoggerWithSlog(slog.New(rec))})
		require.NoError(t, err)
		defer tv.Close()
		assert.Equal(t, map[string]any{"k": int64(7)}, tv.Entries())
		assert.Equal(t, 2, rec.count("table view: skipping a value that does not decode"))

		events := tvListener(t, tv)
		assert.Equal(t, tvEvent{"k", int64(7)}, nextEvent(t, events))
		sendKeyed(t, p, "k", &ProducerMessage{Payload: []byte("x")})
		sendKeyed(t, p, "k", &ProducerMessage{Value: int64(8)})
		assert.Equal(t, tvEvent{"k", int64(8)}, nextEvent(t, events), "the bad value reached no listener")
		assert.Equal(t, 3, rec.count("table view: skipping a value that does not decode"))
	})
}

// Listeners are called one at a time in the order of the updates; one may
// read the view and close it; a listener's error is logged and the others
// still run; an action that fails ForEachAndListen is not registered.
func TestTableViewListeners(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p, err := v.c.CreateProducer(ProducerOptions{Topic: topic, DisableBatching: true})
		require.NoError(t, err)
		defer p.Close()
		sendKeyed(t, p, "x", &ProducerMessage{Payload: []byte("1")})
		rec := &logRecorder{}
		tv, err := v.c.CreateTableView(TableViewOptions{Topic: topic, Logger: log.NewLoggerWithSlog(slog.New(rec))})
		require.NoError(t, err)
		defer tv.Close()

		boom := errors.New("boom")
		assert.ErrorIs(t, tv.ForEachAndListen(func(string, any) error { return boom }), boom)
		assert.ErrorIs(t, tv.ForEach(func(string, any) error { return boom }), boom)

		failing := tvListener(t, tv) // after the failing one: it must still be called
		require.NoError(t, tv.ForEachAndListen(func(k string, _ any) error {
			if k == "y" {
				return boom
			}
			return nil
		}))
		closing := make(chan any, 10)
		require.NoError(t, tv.ForEachAndListen(func(k string, val any) error {
			if k == "stop" {
				closing <- tv.Get("stop") // the map holds the value when listeners run
				tv.Close()
			}
			return nil
		}))
		assert.Equal(t, tvEvent{"x", []byte("1")}, nextEvent(t, failing))
		sendKeyed(t, p, "y", &ProducerMessage{Payload: []byte("2")})
		assert.Equal(t, tvEvent{"y", []byte("2")}, nextEvent(t, failing))
		synctest.Wait()
		assert.Equal(t, 1, rec.count("table view listener failed"))

		sendKeyed(t, p, "stop", &ProducerMessage{Payload: []byte("3")})
		assert.Equal(t, []byte("3"), <-closing)
		assert.Equal(t, tvEvent{"stop", []byte("3")}, nextEvent(t, failing))
		sendKeyed(t, p, "after", &ProducerMessage{Payload: []byte("4")})
		synctest.Wait()
		assert.False(t, tv.ContainsKey("after"), "a closed view does not change")
		assert.Empty(t, failing)
		assert.Equal(t, 3, tv.Size(), "a closed view keeps its values")
		require.NoError(t, tv.ForEachAndListen(func(string, any) error { return nil }), "ForEach after Close")
	})
}

// A view of a partitioned topic reads every partition and, every
// AutoUpdatePartitionsInterval, the partitions added since; closing the
// client closes the view (its goroutines end: the bubble checks).
func TestTableViewFollowsPartitions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		require.NoError(t, v.b.CreatePartitionedTopic("tv-grow", 2))
		byKey := func(m *ProducerMessage, md TopicMetadata) int {
			i, _ := strconv.Atoi(m.Key)
			return i % int(md.NumPartitions())
		}
		p, err := v.c.CreateProducer(ProducerOptions{Topic: "tv-grow", Schema: NewStringSchema(nil), MessageRouter: byKey,
			PartitionsAutoDiscoveryInterval: 5 * time.Second})
		require.NoError(t, err)
		defer p.Close()
		for _, k := range []string{"0", "1"} {
			sendKeyed(t, p, k, &ProducerMessage{Value: "v" + k})
		}
		require.NoError(t, p.Flush())
		s := ""
		tv, err := v.c.CreateTableView(TableViewOptions{Topic: "tv-grow", Schema: NewStringSchema(nil),
			SchemaValueType: reflect.TypeOf(&s), AutoUpdatePartitionsInterval: 10 * time.Second})
		require.NoError(t, err)
		assert.Equal(t, []string{"0", "1"}, tv.Keys())
		assert.Equal(t, "v1", *tv.Get("1").(*string))

		code, body := adminCall(t, v.b, http.MethodPost, "/admin/v2/persistent/public/default/tv-grow/partitions", "3")
		require.Equal(t, http.StatusNoContent, code, body)
		time.Sleep(6 * time.Second) // the producer's discovery; not yet the view's
		synctest.Wait()
		sendKeyed(t, p, "2", &ProducerMessage{Value: "v2"})
		require.NoError(t, p.Flush())
		synctest.Wait()
		assert.False(t, tv.ContainsKey("2"), "partition 2 read before the view's poll")
		time.Sleep(5 * time.Second)
		synctest.Wait()
		require.True(t, tv.ContainsKey("2"), "partition 2 not read after the view's poll")
		assert.Equal(t, "v2", *tv.Get("2").(*string))
		v.c.Close()
		assert.True(t, tv.(*TableViewImpl).isClosed(), "closing the client closed the view")
	})
}

// ForEachAndListen registered while updates arrive sees every value once:
// the snapshot's, then each later one, none missed or repeated.
func TestTableViewListenWhileUpdating(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p, err := v.c.CreateProducer(ProducerOptions{Topic: topic, Schema: NewInt64Schema(nil), BatchingMaxMessages: 7})
		require.NoError(t, err)
		defer p.Close()
		tv, err := v.c.CreateTableView(TableViewOptions{Topic: topic, Schema: NewInt64Schema(nil), SchemaValueType: reflect.TypeOf(int64(0))})
		require.NoError(t, err)
		defer tv.Close()
		const last = 300
		half, registered := make(chan struct{}), make(chan struct{})
		go func() {
			for i := int64(1); i <= last; i++ {
				p.SendAsync(context.Background(), &ProducerMessage{Key: "k", Value: i}, func(MessageID, *ProducerMessage, error) {})
				switch {
				case i == last/2:
					close(half) // 1..150 in flight while the listener registers
				case i == 2*last/3:
					<-registered // so that the listener has updates to see
				}
			}
			_ = p.Flush()
		}()
		<-half
		var got []int64
		lastSeen := make(chan struct{})
		require.NoError(t, tv.ForEachAndListen(func(_ string, val any) error {
			got = append(got, val.(int64))
			if val.(int64) == last {
				close(lastSeen)
			}
			return nil
		}))
		close(registered)
		<-lastSeen
		require.NotEmpty(t, got)
		assert.LessOrEqual(t, got[0], int64(2*last/3), "registered before value 200 was sent")
		for i := range got {
			require.Equal(t, got[0]+int64(i), got[i], "value %d of %v", i, got)
		}
	})
}

// A view of a non-persistent topic is refused as the official client's is:
// its compacted reader is not allowed there.
func TestTableViewNonPersistentRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		_, err := v.c.CreateTableView(TableViewOptions{Topic: "non-persistent://public/default/tv-np"})
		var se *ServerError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, "NotAllowedError", se.Code)
	})
}
