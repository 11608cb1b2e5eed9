package brokerstub

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// The watcher commands are written and read here with field numbers taken
// from upstream PulsarApi.proto, independently of the broker's codec.

// sendWatch writes CommandWatchTopicList (BaseCommand field 64).
func (c *rawClient) sendWatch(rid, wid uint64, ns, pattern string, hash *string) {
	c.t.Helper()
	var m []byte
	m = protowire.AppendTag(m, 1, protowire.VarintType)
	m = protowire.AppendVarint(m, rid)
	m = protowire.AppendTag(m, 2, protowire.VarintType)
	m = protowire.AppendVarint(m, wid)
	m = protowire.AppendTag(m, 3, protowire.BytesType)
	m = protowire.AppendString(m, ns)
	m = protowire.AppendTag(m, 4, protowire.BytesType)
	m = protowire.AppendString(m, pattern)
	if hash != nil {
		m = protowire.AppendTag(m, 5, protowire.BytesType)
		m = protowire.AppendString(m, *hash)
	}
	c.writeUnknown(64, m)
}

// sendWatchClose writes CommandWatchTopicListClose (field 67).
func (c *rawClient) sendWatchClose(rid, wid uint64) {
	c.t.Helper()
	var m []byte
	m = protowire.AppendTag(m, 1, protowire.VarintType)
	m = protowire.AppendVarint(m, rid)
	m = protowire.AppendTag(m, 2, protowire.VarintType)
	m = protowire.AppendVarint(m, wid)
	c.writeUnknown(67, m)
}

func (c *rawClient) writeUnknown(typ uint64, m []byte) {
	var body []byte
	body = protowire.AppendTag(body, 1, protowire.VarintType)
	body = protowire.AppendVarint(body, typ)
	body = protowire.AppendTag(body, protowire.Number(typ), protowire.BytesType)
	body = protowire.AppendBytes(body, m)
	f := binary.BigEndian.AppendUint32(nil, uint32(4+len(body)))
	f = binary.BigEndian.AppendUint32(f, uint32(len(body)))
	c.writeRaw(append(f, body...))
}

// watchMsg is a decoded WATCH_TOPIC_LIST_SUCCESS or WATCH_TOPIC_UPDATE.
type watchMsg struct {
	typ                  proto.BaseCommand_Type
	requestID, watcherID uint64
	topics, deleted      []string // success: topic; update: new_topics
	hash                 string
}

// expectWatch reads frames until a watcher message arrives (skipping
// pings) and fails on anything else.
func (c *rawClient) expectWatch(want proto.BaseCommand_Type) watchMsg {
	c.t.Helper()
	for {
		f, err := c.next()
		var fe *wire.FrameError
		if err == nil && f.Cmd.GetType() == proto.BaseCommand_PING {
			continue
		}
		if err == nil {
			c.t.Fatalf("want %s, got %s", want, f.Cmd)
		}
		if !errors.As(err, &fe) || !errors.Is(err, wire.ErrUnknownCommand) || fe.Cmd == nil {
			c.t.Fatalf("waiting for %s: %v", want, err)
		}
		require.Equal(c.t, want, fe.Type)
		return decodeWatchMsg(c.t, fe.Type, fe.Cmd.ProtoReflect().GetUnknown())
	}
}

func decodeWatchMsg(t *testing.T, typ proto.BaseCommand_Type, b []byte) watchMsg {
	t.Helper()
	m := watchMsg{typ: typ}
	for len(b) > 0 {
		num, wt, n := protowire.ConsumeTag(b)
		require.Positive(t, n)
		b = b[n:]
		require.Equal(t, protowire.Number(typ), num)
		inner, n := protowire.ConsumeBytes(b)
		require.Positive(t, n)
		b = b[n:]
		require.Equal(t, protowire.BytesType, wt)
		for len(inner) > 0 {
			f, ft, n := protowire.ConsumeTag(inner)
			require.Positive(t, n)
			inner = inner[n:]
			if ft == protowire.VarintType {
				v, n := protowire.ConsumeVarint(inner)
				inner = inner[n:]
				switch {
				case f == 1 && typ == proto.BaseCommand_WATCH_TOPIC_LIST_SUCCESS:
					m.requestID = v
				case f == 2 && typ == proto.BaseCommand_WATCH_TOPIC_LIST_SUCCESS, f == 1:
					m.watcherID = v
				}
				continue
			}
			s, n := protowire.ConsumeString(inner)
			require.Positive(t, n)
			inner = inner[n:]
			switch {
			case f == 3 && typ == proto.BaseCommand_WATCH_TOPIC_LIST_SUCCESS, f == 2:
				m.topics = append(m.topics, s)
			case f == 3:
				m.deleted = append(m.deleted, s)
			case f == 4:
				m.hash = s
			}
		}
	}
	return m
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
	ok := w.expectWatch(proto.BaseCommand_WATCH_TOPIC_LIST_SUCCESS)
	assert.Equal(t, uint64(7), ok.requestID)
	assert.Equal(t, uint64(3), ok.watcherID)
	assert.Equal(t, []string{"persistent://public/default/orders-1"}, ok.topics)
	assert.Equal(t, topicsHash(ok.topics), ok.hash)

	// A producer auto-creates a matching topic: one update, with the new hash.
	attachProducer(t, c, "orders-2", 3)
	up := w.expectWatch(proto.BaseCommand_WATCH_TOPIC_UPDATE)
	assert.Equal(t, uint64(3), up.watcherID)
	assert.Equal(t, []string{"persistent://public/default/orders-2"}, up.topics)
	assert.Empty(t, up.deleted)
	assert.Equal(t, topicsHash([]string{"persistent://public/default/orders-1", "persistent://public/default/orders-2"}), up.hash)

	// Topics that do not match, in other namespaces, or already existing
	// send nothing; a partitioned topic sends one update per partition.
	attachProducer(t, c, "audit-2", 4)
	attachProducer(t, c, "persistent://other/ns/orders-3", 5)
	attachProducer(t, c, "non-persistent://public/default/orders-np", 6)
	require.NoError(t, b.CreatePartitionedTopic("orders-p", 2))
	for i := range 2 {
		up = w.expectWatch(proto.BaseCommand_WATCH_TOPIC_UPDATE)
		assert.Equal(t, []string{partitionName("persistent://public/default/orders-p", i)}, up.topics)
	}
	// A subscription on an existing partition is not a creation.
	rawSubscribe(t, c, "persistent://public/default/orders-p-partition-0", 9, 0)
	w.send(&proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
	w.expect(proto.BaseCommand_PONG)

	// A deleted topic is reported as such (deleted here as the admin API
	// does, which then calls topicListChanged).
	require.NoError(t, b.Unload("persistent://public/default/orders-1"))
	c.expect(proto.BaseCommand_CLOSE_PRODUCER)
	require.NoError(t, b.st.DeleteTopic("persistent://public/default/orders-1"))
	b.topicListChanged()
	up = w.expectWatch(proto.BaseCommand_WATCH_TOPIC_UPDATE)
	assert.Equal(t, []string{"persistent://public/default/orders-1"}, up.deleted)
	assert.Empty(t, up.topics)
	assert.Equal(t, topicsHash([]string{"persistent://public/default/orders-2",
		"persistent://public/default/orders-p-partition-0", "persistent://public/default/orders-p-partition-1"}), up.hash)

	// After WATCH_TOPIC_LIST_CLOSE (answered SUCCESS) nothing more comes.
	w.sendWatchClose(8, 3)
	assert.Equal(t, uint64(8), w.expect(proto.BaseCommand_SUCCESS).GetSuccess().GetRequestId())
	attachProducer(t, c, "orders-4", 7)
	w.send(&proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
	w.expect(proto.BaseCommand_PONG)
}

func TestWatchTopicListHashAndErrors(t *testing.T) {
	b := RunT(t)
	c := dialRaw(t, b)
	c.connect()
	attachProducer(t, c, "orders-1", 1)
	list := []string{"persistent://public/default/orders-1"}

	// A client reconnecting with the hash it has gets no topics, only the hash.
	hash := topicsHash(list)
	c.sendWatch(1, 1, "public/default", "persistent://public/default/orders-.*", &hash)
	ok := c.expectWatch(proto.BaseCommand_WATCH_TOPIC_LIST_SUCCESS)
	assert.Empty(t, ok.topics)
	assert.Equal(t, hash, ok.hash)
	// A stale hash gets the list; so does a retry of the same watcher id.
	stale := "00000000"
	c.sendWatch(2, 2, "public/default", "persistent://public/default/orders-.*", &stale)
	assert.Equal(t, list, c.expectWatch(proto.BaseCommand_WATCH_TOPIC_LIST_SUCCESS).topics)
	c.sendWatch(3, 2, "public/default", "persistent://public/default/orders-.*", nil)
	ok = c.expectWatch(proto.BaseCommand_WATCH_TOPIC_LIST_SUCCESS)
	assert.Equal(t, uint64(3), ok.requestID)
	assert.Equal(t, list, ok.topics)

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
		up := c.expectWatch(proto.BaseCommand_WATCH_TOPIC_UPDATE)
		seen[up.watcherID] = true
	}
	assert.Equal(t, map[uint64]bool{1: true, 2: true}, seen)
	require.NoError(t, b.Close()) // waits for every connection to be detached
	assert.Empty(t, b.watch.byConn)
}

func TestWatchTopicListFailedByInterceptor(t *testing.T) {
	b := RunT(t)
	b.Intercept(func(ev Event) Action {
		return Action{Fail: ev.Type == "WATCH_TOPIC_LIST", FailWith: "ServiceNotReady"}
	})
	c := dialRaw(t, b)
	c.connect()
	c.sendWatch(5, 1, "public/default", "persistent://public/default/.*", nil)
	e := c.expect(proto.BaseCommand_ERROR).GetError()
	assert.Equal(t, uint64(5), e.GetRequestId())
	assert.Equal(t, proto.ServerError_ServiceNotReady, e.GetError())
}
