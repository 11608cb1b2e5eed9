package brokerstub

import (
	"encoding/binary"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

// sendWatch writes WATCH_TOPIC_LIST; hash is nil on a first watch.
func (c *rawClient) sendWatch(rid, wid uint64, ns, pattern string, hash *string) {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_WATCH_TOPIC_LIST.Enum(), WatchTopicList: &proto.CommandWatchTopicList{
		RequestId: &rid, WatcherId: &wid, Namespace: &ns, TopicsPattern: &pattern, TopicsHash: hash}})
}

// sendWatchClose writes WATCH_TOPIC_LIST_CLOSE.
func (c *rawClient) sendWatchClose(rid, wid uint64) {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_WATCH_TOPIC_LIST_CLOSE.Enum(),
		WatchTopicListClose: &proto.CommandWatchTopicListClose{RequestId: &rid, WatcherId: &wid}})
}

// expectWatchSuccess reads frames until WATCH_TOPIC_LIST_SUCCESS (skipping
// pings) and fails on anything else.
func (c *rawClient) expectWatchSuccess() *proto.CommandWatchTopicListSuccess {
	c.t.Helper()
	return c.expect(proto.BaseCommand_WATCH_TOPIC_LIST_SUCCESS).GetWatchTopicListSuccess()
}

// expectWatchUpdate reads frames until WATCH_TOPIC_UPDATE (skipping pings)
// and fails on anything else.
func (c *rawClient) expectWatchUpdate() *proto.CommandWatchTopicUpdate {
	c.t.Helper()
	return c.expect(proto.BaseCommand_WATCH_TOPIC_UPDATE).GetWatchTopicUpdate()
}

func TestWatchTopicListNotifiesCreatedTopics(t *testing.T) {
	b := RunT(t)
	c := dialRaw(t, b)
	c.connect()
	attachProducer(t, c, "orders-1", 1)
	attachProducer(t, c, "audit", 2)

	w := dialRaw(t, b)
	w.connect()
	w.sendWatch(7, 3, "public/default", "persistent://public/default/orders-.*", nil)
	ok := w.expectWatchSuccess()
	assert.Equal(t, uint64(7), ok.GetRequestId())
	assert.Equal(t, uint64(3), ok.GetWatcherId())
	assert.Equal(t, []string{"persistent://public/default/orders-1"}, ok.GetTopic())
	assert.Equal(t, engine.TopicsHash(ok.GetTopic()), ok.GetTopicsHash())

	// A producer auto-creates a matching topic: one update, with the new hash.
	attachProducer(t, c, "orders-2", 3)
	up := w.expectWatchUpdate()
	assert.Equal(t, uint64(3), up.GetWatcherId())
	assert.Equal(t, []string{"persistent://public/default/orders-2"}, up.GetNewTopics())
	assert.Empty(t, up.GetDeletedTopics())
	assert.Equal(t, engine.TopicsHash([]string{"persistent://public/default/orders-1", "persistent://public/default/orders-2"}), up.GetTopicsHash())

	// Topics that do not match, in other namespaces, or already existing
	// send nothing; a partitioned topic sends one update per partition.
	attachProducer(t, c, "audit-2", 4)
	require.NoError(t, b.CreateNamespace("other/ns"))
	attachProducer(t, c, "persistent://other/ns/orders-3", 5)
	attachProducer(t, c, "non-persistent://public/default/orders-np", 6)
	require.NoError(t, b.CreatePartitionedTopic("orders-p", 2))
	for i := range 2 {
		up = w.expectWatchUpdate()
		assert.Equal(t, []string{engine.PartitionName("persistent://public/default/orders-p", i)}, up.GetNewTopics())
	}
	// A subscription on an existing partition is not a creation.
	rawSubscribe(t, c, "persistent://public/default/orders-p-partition-0", 9, 0)
	w.Send(&proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
	w.expect(proto.BaseCommand_PONG)

	// A deleted topic is reported as such (deleted here as the admin API
	// does, which then calls topicListChanged).
	require.NoError(t, b.Unload("persistent://public/default/orders-1"))
	c.expect(proto.BaseCommand_CLOSE_PRODUCER)
	require.NoError(t, b.eng.Store().DeleteTopic("persistent://public/default/orders-1"))
	b.srv.TopicListChanged()
	up = w.expectWatchUpdate()
	assert.Equal(t, []string{"persistent://public/default/orders-1"}, up.GetDeletedTopics())
	assert.Empty(t, up.GetNewTopics())
	assert.Equal(t, engine.TopicsHash([]string{"persistent://public/default/orders-2",
		"persistent://public/default/orders-p-partition-0", "persistent://public/default/orders-p-partition-1"}), up.GetTopicsHash())

	// After WATCH_TOPIC_LIST_CLOSE (answered SUCCESS) nothing more comes.
	w.sendWatchClose(8, 3)
	assert.Equal(t, uint64(8), w.expect(proto.BaseCommand_SUCCESS).GetSuccess().GetRequestId())
	attachProducer(t, c, "orders-4", 7)
	w.Send(&proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
	w.expect(proto.BaseCommand_PONG)
}

func TestWatchTopicListHashAndErrors(t *testing.T) {
	b := RunT(t)
	c := dialRaw(t, b)
	c.connect()
	attachProducer(t, c, "orders-1", 1)
	list := []string{"persistent://public/default/orders-1"}

	// A client reconnecting with the hash it has gets no topics, only the hash.
	hash := engine.TopicsHash(list)
	c.sendWatch(1, 1, "public/default", "persistent://public/default/orders-.*", &hash)
	ok := c.expectWatchSuccess()
	assert.Empty(t, ok.GetTopic())
	assert.Equal(t, hash, ok.GetTopicsHash())
	// A stale hash gets the list; so does a retry of the same watcher id.
	stale := "00000000"
	c.sendWatch(2, 2, "public/default", "persistent://public/default/orders-.*", &stale)
	assert.Equal(t, list, c.expectWatchSuccess().GetTopic())
	c.sendWatch(3, 2, "public/default", "persistent://public/default/orders-.*", nil)
	ok = c.expectWatchSuccess()
	assert.Equal(t, uint64(3), ok.GetRequestId())
	assert.Equal(t, list, ok.GetTopic())

	// Longer than subscriptionPatternMaxLength: NotAllowedError, as Pulsar.
	c.sendWatch(4, 4, "public/default", "persistent://public/default/orders-.*-and-a-very-long-tail", nil)
	e := c.expect(proto.BaseCommand_ERROR).GetError()
	assert.Equal(t, uint64(4), e.GetRequestId())
	assert.Equal(t, proto.ServerError_NotAllowedError, e.GetError())

	// Watchers 1 and 2 both see a new topic; the connection's close drops them.
	p := dialRaw(t, b)
	p.connect()
	attachProducer(t, p, "orders-2", 2)
	seen := map[uint64]bool{}
	for range 2 {
		up := c.expectWatchUpdate()
		seen[up.GetWatcherId()] = true
	}
	assert.Equal(t, map[uint64]bool{1: true, 2: true}, seen)
	require.NoError(t, b.Close()) // waits for every connection to be detached
	assert.Empty(t, b.srv.Watch.ByConn)
}

func TestWatchTopicListFailedByInterceptor(t *testing.T) {
	b := RunT(t)
	b.Intercept(func(ev Event) Action {
		return Action{Fail: ev.Type == CmdWatchTopicList, FailWith: "ServiceNotReady"}
	})
	c := dialRaw(t, b)
	c.connect()
	c.sendWatch(5, 1, "public/default", "persistent://public/default/.*", nil)
	e := c.expect(proto.BaseCommand_ERROR).GetError()
	assert.Equal(t, uint64(5), e.GetRequestId())
	assert.Equal(t, proto.ServerError_ServiceNotReady, e.GetError())
}

// TestWatchTopicListMissingRequiredField: a WATCH_TOPIC_LIST without a
// required field (here topics_pattern) is a malformed frame, and the broker
// closes the connection, as Pulsar does when a command fails to parse.
func TestWatchTopicListMissingRequiredField(t *testing.T) {
	b := RunT(t)
	c := dialRaw(t, b)
	c.connect()
	body, err := gproto.MarshalOptions{AllowPartial: true}.Marshal(&proto.BaseCommand{
		Type: proto.BaseCommand_WATCH_TOPIC_LIST.Enum(), WatchTopicList: &proto.CommandWatchTopicList{
			RequestId: gproto.Uint64(1), WatcherId: gproto.Uint64(1), Namespace: gproto.String("public/default")}})
	require.NoError(t, err)
	f := binary.BigEndian.AppendUint32(nil, uint32(4+len(body)))
	f = binary.BigEndian.AppendUint32(f, uint32(len(body)))
	c.writeRaw(append(f, body...))
	c.expectClosed()
}
