package brokerstub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub/internal/keyshared"
	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

const npTopic = "non-persistent://public/default/np"

// npSubscribe attaches a consumer of type typ to sub and, with permits > 0,
// gives it permits; it returns the broker's error or nil, after a barrier.
func npSubscribe(c *ksClient, topic, sub string, id uint64, name string, typ proto.CommandSubscribe_SubType, permits uint32, opts ...func(*proto.CommandSubscribe)) *proto.CommandError {
	c.t.Helper()
	rid := c.nextRID()
	m := &proto.CommandSubscribe{Topic: &topic, Subscription: &sub, SubType: typ.Enum(),
		ConsumerId: &id, RequestId: &rid, ConsumerName: &name, Durable: gproto.Bool(true)}
	for _, o := range opts {
		o(m)
	}
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: m})
	for {
		f, err := c.next()
		require.NoError(c.t, err)
		switch f.Cmd.GetType() {
		case proto.BaseCommand_SUCCESS:
			if permits > 0 {
				c.flow(id, permits)
			}
			c.barrier(id)
			return nil
		case proto.BaseCommand_ERROR:
			return f.Cmd.GetError()
		}
	}
}

func mustNPSubscribe(c *ksClient, sub string, id uint64, name string, typ proto.CommandSubscribe_SubType, permits uint32) {
	c.t.Helper()
	if e := npSubscribe(c, npTopic, sub, id, name, typ, permits); e != nil {
		c.t.Fatalf("subscribe %s: %s", name, e)
	}
}

// npStats reads a topic's admin stats.
func npStats(t *testing.T, b *Broker, topic string) map[string]any {
	t.Helper()
	code, body := adminDo(t, b, "GET", "/admin/v2/non-persistent/public/default/"+topic+"/stats", "")
	require.Equal(t, http.StatusOK, code, body)
	var st map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &st))
	return st
}

func subStats(t *testing.T, st map[string]any, sub string) map[string]any {
	t.Helper()
	subs := st["subscriptions"].(map[string]any)
	require.Contains(t, subs, sub)
	return subs[sub].(map[string]any)
}

func TestNonPersistentDeliversOnlyWhatConnectedConsumersCanTake(t *testing.T) {
	clk := NewFakeClock(time.Unix(1_700_000_000, 0))
	b := RunT(t, Options{Clock: clk})
	c := dialKS(t, b)
	p := c.producer(npTopic, 1)

	// No subscription yet: the message is gone, the receipt says 0:0.
	assert.Equal(t, Position{0, 0}, p.Send("k", "before"))

	mustNPSubscribe(c, "s", 10, "c", proto.CommandSubscribe_Exclusive, 2)
	for _, m := range []string{"m1", "m2", "m3", "m4"} {
		assert.Equal(t, Position{0, 0}, p.Send("k", m))
	}
	got := c.sync(10)
	assert.Equal(t, []string{"m1", "m2"}, payloads(got), "only as many as the permits")
	for _, m := range got {
		assert.Equal(t, Position{0, 0}, m.Pos)
	}

	// Permits given now do not bring back what was dropped.
	c.flow(10, 5)
	assert.Empty(t, c.sync(10))
	p.Send("k", "m5")
	assert.Equal(t, []string{"m5"}, payloads(c.sync(10)))

	st := npStats(t, b, "np")
	assert.EqualValues(t, 6, st["msgInCounter"])
	assert.EqualValues(t, 3, st["msgOutCounter"])
	ss := subStats(t, st, "s")
	assert.EqualValues(t, 0, ss["msgDropRate"], "Pulsar's rate is 0 until its first stats window ends")
	assert.EqualValues(t, 0, ss["msgBacklog"])
	assert.Equal(t, false, ss["isDurable"])
	assert.Contains(t, st, "msgDropRate")
	assert.NotContains(t, st, "deduplicationStatus")
	assert.EqualValues(t, 0, st["topicCreationTimeStamp"])
	assert.Contains(t, st["publishers"].([]any)[0], "msgDropRate")

	clk.Advance(engine.StatsWindow)
	ss = subStats(t, npStats(t, b, "np"), "s")
	assert.InDelta(t, 2.0/60, ss["msgDropRate"], 1e-9, "m3 and m4 dropped in the first 60 s window")
	clk.Advance(engine.StatsWindow)
	ss = subStats(t, npStats(t, b, "np"), "s")
	assert.EqualValues(t, 0, ss["msgDropRate"], "no drops in the window after")
}

func TestNonPersistentNothingSurvivesRestartOrCrash(t *testing.T) {
	for _, crash := range []bool{false, true} {
		b := RunT(t, Options{DataDir: filepath.Join(t.TempDir(), "data")})
		c := dialKS(t, b)
		p := c.producer(npTopic, 1)
		mustNPSubscribe(c, "s", 10, "c", proto.CommandSubscribe_Exclusive, 10)
		p.Send("k", "m1")
		require.Len(t, c.sync(10), 1)
		c.ack(10, Position{0, 0})

		if crash {
			require.NoError(t, b.Crash())
		} else {
			require.NoError(t, b.Restart())
		}
		stored, err := b.eng.Store().Topics()
		require.NoError(t, err)
		assert.Empty(t, stored, "a non-persistent topic leaves nothing in the data dir")
		cursors, err := b.eng.Store().Cursors(npTopic)
		require.NoError(t, err)
		assert.Empty(t, cursors)
		code, _ := adminDo(t, b, "GET", "/admin/v2/non-persistent/public/default/np/stats", "")
		assert.Equal(t, http.StatusNotFound, code, "the topic is gone with the broker's memory")
		code, body := adminDo(t, b, "GET", "/admin/v2/non-persistent/public/default", "")
		assert.Equal(t, http.StatusOK, code)
		assert.JSONEq(t, `[]`, body)

		c2 := dialKS(t, b)
		mustNPSubscribe(c2, "s", 10, "c", proto.CommandSubscribe_Exclusive, 10)
		assert.Empty(t, c2.sync(10), "nothing is replayed")
	}
}

func TestNonPersistentSharedRoundRobinByPriority(t *testing.T) {
	b := RunT(t)
	c := dialKS(t, b)
	p := c.producer(npTopic, 1)
	level1 := func(m *proto.CommandSubscribe) { m.PriorityLevel = gproto.Int32(1) }
	require.Nil(t, npSubscribe(c, npTopic, "s", 10, "a", proto.CommandSubscribe_Shared, 2, level1))
	require.Nil(t, npSubscribe(c, npTopic, "s", 11, "b", proto.CommandSubscribe_Shared, 2, level1))
	for _, m := range []string{"m1", "m2", "m3", "m4", "m5"} {
		p.Send("", m)
	}
	a, bb := c.sync(10), c.sync(11)
	assert.Equal(t, []string{"m1", "m3"}, payloads(a))
	assert.Equal(t, []string{"m2", "m4"}, payloads(bb))

	// A consumer of a higher priority level (0, the highest) takes
	// everything while it has permits; the others get only what it cannot.
	mustNPSubscribe(c, "s", 12, "hi", proto.CommandSubscribe_Shared, 2)
	c.flow(10, 1)
	for _, m := range []string{"m6", "m7", "m8", "m9"} {
		p.Send("", m)
	}
	assert.Equal(t, []string{"m6", "m7"}, payloads(c.sync(12)))
	assert.Equal(t, []string{"m8"}, payloads(c.sync(10)))
	assert.Empty(t, c.sync(11))
}

func TestNonPersistentFailoverOnlyActiveConsumer(t *testing.T) {
	b := RunT(t)
	c := dialKS(t, b)
	p := c.producer(npTopic, 1)
	mustNPSubscribe(c, "s", 10, "a", proto.CommandSubscribe_Failover, 1)
	mustNPSubscribe(c, "s", 11, "b", proto.CommandSubscribe_Failover, 10)
	p.Send("", "m1")
	p.Send("", "m2") // the active consumer "a" has no permits left: dropped
	assert.Equal(t, []string{"m1"}, payloads(c.sync(10)))
	assert.Empty(t, c.sync(11), "the standby gets nothing, not even what the active one cannot take")
	assert.NotContains(t, subStats(t, npStats(t, b, "np"), "s"), "activeConsumerName")

	c.closeConsumer(10)
	p.Send("", "m3")
	assert.Equal(t, []string{"m3"}, payloads(c.sync(11)))
}

func TestNonPersistentKeySharedKeepsKeysAtOneConsumerInOrder(t *testing.T) {
	b := RunT(t)
	c := dialKS(t, b)
	p := c.producer(npTopic, 1)
	mustNPSubscribe(c, "s", 10, "a", proto.CommandSubscribe_Key_Shared, 1000)
	mustNPSubscribe(c, "s", 11, "b", proto.CommandSubscribe_Key_Shared, 1000)
	keys := []string{"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"}
	for i := range 40 {
		k := keys[i%len(keys)]
		p.Send(k, k+"-"+string(rune('a'+i/len(keys))))
	}
	got := map[uint64][]ksMsg{10: c.sync(10), 11: c.sync(11)}
	owner := map[string]uint64{}
	for id, msgs := range got {
		last := map[string]string{}
		for _, m := range msgs {
			if o, ok := owner[m.Key]; ok {
				assert.Equal(t, o, id, "key %s went to two consumers", m.Key)
			}
			owner[m.Key] = id
			assert.Less(t, last[m.Key], m.Payload, "key %s out of order", m.Key)
			last[m.Key] = m.Payload
		}
	}
	assert.Len(t, owner, len(keys), "every message was delivered")
	require.NotEmpty(t, got[10])
	require.NotEmpty(t, got[11])

	// The consumer a key hashes to has no permits left: its messages are
	// dropped even though the other consumer could take them.
	var keyOfB string
	for k, id := range owner {
		if id == 11 {
			keyOfB = k
		}
	}
	left := 1000 - len(got[11])
	for range left {
		p.Send(keyOfB, "fill")
	}
	require.Len(t, c.sync(11), left)
	p.Send(keyOfB, "dropped")
	assert.Empty(t, c.sync(11))
	assert.Empty(t, c.sync(10))
	ss := subStats(t, npStats(t, b, "np"), "s")
	assert.Equal(t, "Key_Shared", ss["type"])
	assert.Equal(t, "AUTO_SPLIT", ss["keySharedMode"])
}

func TestNonPersistentAckRedeliverSeekAndLastMessageID(t *testing.T) {
	b := RunT(t)
	c := dialKS(t, b)
	p := c.producer(npTopic, 1)
	mustNPSubscribe(c, "s", 10, "c", proto.CommandSubscribe_Shared, 10)
	p.Send("", "m1")
	require.Len(t, c.sync(10), 1)

	c.ack(10, Position{0, 0}) // accepted, as Pulsar: a no-op
	c.redeliver(10)
	assert.Empty(t, c.sync(10), "nothing is kept to redeliver")

	rid := c.nextRID()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SEEK.Enum(), Seek: &proto.CommandSeek{
		ConsumerId: gproto.Uint64(10), RequestId: &rid, MessagePublishTime: gproto.Uint64(1)}})
	assert.Equal(t, rid, c.readUntil(proto.BaseCommand_SUCCESS).GetSuccess().GetRequestId())
	p.Send("", "m2")
	assert.Equal(t, []string{"m2"}, payloads(c.sync(10)), "a seek leaves the consumer attached")

	rid = c.nextRID()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_GET_LAST_MESSAGE_ID.Enum(), GetLastMessageId: &proto.CommandGetLastMessageId{
		ConsumerId: gproto.Uint64(10), RequestId: &rid}})
	e := c.readUntil(proto.BaseCommand_ERROR).GetError()
	assert.Equal(t, rid, e.GetRequestId())
	assert.Equal(t, proto.ServerError_UnknownError, e.GetError())

	e2 := npSubscribe(c, npTopic, "r", 11, "reader", proto.CommandSubscribe_Exclusive, 0, func(m *proto.CommandSubscribe) {
		m.ReadCompacted = gproto.Bool(true)
	})
	require.NotNil(t, e2)
	assert.Equal(t, proto.ServerError_NotAllowedError, e2.GetError())
}

func TestNonPersistentSubscriptionGoesWithItsLastConsumer(t *testing.T) {
	b := RunT(t)
	c := dialKS(t, b)
	p := c.producer(npTopic, 1)
	mustNPSubscribe(c, "s", 10, "c", proto.CommandSubscribe_Exclusive, 10)
	assert.Contains(t, npStats(t, b, "np")["subscriptions"], "s")
	c.closeConsumer(10)
	assert.NotContains(t, npStats(t, b, "np")["subscriptions"], "s")
	p.Send("", "m1") // nobody subscribed: released, not counted as a drop
	mustNPSubscribe(c, "s", 11, "c", proto.CommandSubscribe_Shared, 10)
	assert.Empty(t, c.sync(11), "a subscription created later starts at the next message")
	p.Send("", "m2")
	assert.Equal(t, []string{"m2"}, payloads(c.sync(11)))
}

func TestNonPersistentBatchesAndChunksPassThroughUnchanged(t *testing.T) {
	b := RunT(t)
	c := dialKS(t, b)
	p := c.producer(npTopic, 1)
	mustNPSubscribe(c, "s", 10, "c", proto.CommandSubscribe_Exclusive, 4)

	name := p.name
	send := func(seq uint64, md *proto.MessageMetadata, num int32, payload string) {
		md.ProducerName, md.SequenceId, md.PublishTime = &name, &seq, gproto.Uint64(7)
		c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
			ProducerId: &p.id, SequenceId: &seq, NumMessages: &num}}, md, []byte(payload))
	}
	send(0, &proto.MessageMetadata{NumMessagesInBatch: gproto.Int32(3)}, 3, "batch-bytes")
	send(1, &proto.MessageMetadata{Uuid: gproto.String(name + "-1"), ChunkId: gproto.Int32(0), NumChunksFromMsg: gproto.Int32(2), TotalChunkMsgSize: gproto.Int32(8)}, 1, "chunk-0")
	send(2, &proto.MessageMetadata{Uuid: gproto.String(name + "-1"), ChunkId: gproto.Int32(1), NumChunksFromMsg: gproto.Int32(2), TotalChunkMsgSize: gproto.Int32(8)}, 1, "chunk-1")

	var got []struct {
		md      *proto.MessageMetadata
		payload string
		id      *proto.MessageIdData
	}
	receipts := 0
	for len(got) < 2 || receipts < 3 {
		f, err := c.next()
		require.NoError(t, err)
		switch f.Cmd.GetType() {
		case proto.BaseCommand_SEND_RECEIPT:
			id := f.Cmd.GetSendReceipt().GetMessageId()
			assert.Equal(t, uint64(0), id.GetLedgerId())
			assert.Equal(t, uint64(0), id.GetEntryId())
			receipts++
		case proto.BaseCommand_MESSAGE:
			got = append(got, struct {
				md      *proto.MessageMetadata
				payload string
				id      *proto.MessageIdData
			}{f.Meta, string(f.Payload), f.Cmd.GetMessage().GetMessageId()})
		}
	}
	assert.Equal(t, "batch-bytes", got[0].payload)
	assert.EqualValues(t, 3, got[0].md.GetNumMessagesInBatch())
	assert.Nil(t, got[0].id.AckSet)
	assert.Equal(t, "chunk-0", got[1].payload)
	assert.EqualValues(t, 0, got[1].md.GetChunkId())
	assert.Equal(t, name+"-1", got[1].md.GetUuid())
	// The batch took 3 permits and chunk 0 the last one: chunk 1 is dropped.
	assert.Empty(t, c.sync(10))
	st := npStats(t, b, "np")
	assert.EqualValues(t, 5, st["msgInCounter"])
	assert.EqualValues(t, 4, st["msgOutCounter"])
}

func TestAdminNonPersistentTopics(t *testing.T) {
	b := RunT(t)
	const base = "/admin/v2/non-persistent/public/default"
	steps := []struct {
		method, path, body string
		code               int
		want               string // JSON the body must equal, "" for any
	}{
		{"GET", base, "", 200, `[]`},
		{"PUT", base + "/t1", "", 204, ""},
		{"PUT", base + "/t1", "", 409, ""},
		{"GET", base, "", 200, `["non-persistent://public/default/t1"]`},
		{"GET", "/admin/v2/persistent/public/default", "", 200, `[]`},
		{"GET", base + "/t1/lastMessageId", "", 405, ""},
		{"GET", base + "/nope/lastMessageId", "", 404, ""},
		{"POST", base + "/t1/terminate", "", 405, ""},
		{"POST", base + "/t1/subscription/s/skip/1", "", 405, ""},
		{"PUT", base + "/t1/subscription/s", "", 400, ""},
		{"GET", base + "/t1/subscriptions", "", 200, `[]`},
		{"PUT", base + "/p/partitions", "2", 204, ""},
		{"GET", base + "/partitioned", "", 200, `["non-persistent://public/default/p"]`},
		{"GET", base + "/p/partitions", "", 200, `{"partitions":2,"deleted":false}`},
		{"GET", base, "", 200, `["non-persistent://public/default/t1"]`}, // partitions nobody used are not topics yet
		{"GET", base + "/p/partitioned-stats", "", 200, ""},
		{"GET", base + "/q/partitioned-stats", "", 404, ""},
		{"DELETE", base + "/t1", "", 204, ""},
		{"DELETE", base + "/t1", "", 404, ""},
		{"GET", base, "", 200, `[]`},
		{"DELETE", base + "/p/partitions", "", 204, ""},
		{"GET", base + "/partitioned", "", 200, `[]`},
	}
	for _, s := range steps {
		code, body := adminDo(t, b, s.method, s.path, s.body)
		require.Equal(t, s.code, code, "%s %s: %s", s.method, s.path, body)
		if s.want != "" {
			assert.JSONEq(t, s.want, body, "%s %s", s.method, s.path)
		}
	}
}

func TestAdminNonPersistentPartitionedStatsAddsLoadedPartitions(t *testing.T) {
	clk := NewFakeClock(time.Unix(1_700_000_000, 0))
	b := RunT(t, Options{Clock: clk})
	require.NoError(t, b.CreatePartitionedTopic("non-persistent://public/default/pt", 3))
	c := dialKS(t, b)
	for i, part := range []string{"pt-partition-0", "pt-partition-1"} {
		topic := "non-persistent://public/default/" + part
		p := c.producer(topic, uint64(1+i))
		if e := npSubscribe(c, topic, "s", uint64(10+i), "c", proto.CommandSubscribe_Exclusive, 1); e != nil {
			t.Fatal(e)
		}
		p.Send("", "a")
		p.Send("", "b") // dropped
		p.Send("", "c") // dropped
		// The receipt goes out before the message is pushed (as in
		// Pulsar): wait for the push, so that the drops fall in this window.
		c.barrier(uint64(10 + i))
	}
	clk.Advance(engine.StatsWindow)
	code, body := adminDo(t, b, "GET", "/admin/v2/non-persistent/public/default/pt/partitioned-stats", "")
	require.Equal(t, http.StatusOK, code, body)
	var st map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &st))
	assert.EqualValues(t, 6, st["msgInCounter"])
	assert.EqualValues(t, 2, st["msgOutCounter"])
	assert.EqualValues(t, map[string]any{"partitions": 3.0, "deleted": false}, st["metadata"])
	// One producer per partition, each the first of its partition: Pulsar
	// adds them into one entry, by index (admin_stats_publishers.go).
	assert.Len(t, st["publishers"], 1)
	assert.InDelta(t, 4.0/60, subStats(t, st, "s")["msgDropRate"], 1e-9)
	assert.Len(t, subStats(t, st, "s")["consumers"], 2)
	parts := st["partitions"].(map[string]any)
	assert.Len(t, parts, 2, "the partition nobody used has no stats")
	p0 := parts["non-persistent://public/default/pt-partition-0"].(map[string]any)
	assert.InDelta(t, 2.0/60, subStats(t, p0, "s")["msgDropRate"], 1e-9, "a partition's own stats are not changed by the sum")

	code, _ = adminDo(t, b, "GET", "/admin/v2/non-persistent/public/default/pt-partition-2/stats", "")
	assert.Equal(t, http.StatusNotFound, code, "a partition nobody used has no stats")
	code, body = adminDo(t, b, "GET", "/admin/v2/namespaces/public/default/topics?mode=NON_PERSISTENT", "")
	require.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `["non-persistent://public/default/pt-partition-0","non-persistent://public/default/pt-partition-1"]`, body,
		"a partition nobody used is no topic yet")

	code, body = adminDo(t, b, "GET", "/admin/v2/non-persistent/public/default/pt/partitioned-stats?perPartition=false", "")
	require.Equal(t, http.StatusOK, code)
	require.NoError(t, json.Unmarshal([]byte(body), &st))
	assert.Empty(t, st["partitions"])
}

func TestRateReportsTheLastCompleteWindow(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	r := &engine.Rate{Start: t0}
	r.Record(t0.Add(time.Second), 6)
	assert.Zero(t, r.Value(t0.Add(59*time.Second)), "the first window is not complete")
	assert.InDelta(t, 0.1, r.Value(t0.Add(engine.StatsWindow)), 1e-12)
	assert.InDelta(t, 0.1, r.Value(t0.Add(engine.StatsWindow+59*time.Second)), 1e-12, "stays until the next window ends")
	r.Record(t0.Add(2*engine.StatsWindow+time.Second), 3)
	assert.Zero(t, r.Value(t0.Add(4*engine.StatsWindow)), "the last complete window had nothing")
	r.Record(t0.Add(4*engine.StatsWindow), 12)
	assert.InDelta(t, 0.2, r.Value(t0.Add(5*engine.StatsWindow)), 1e-12)
}

func TestNonPersistentKeySharedHashNobodyCoversIsNotADrop(t *testing.T) {
	clk := NewFakeClock(time.Unix(1_700_000_000, 0))
	b := RunT(t, Options{Clock: clk})
	c := dialKS(t, b)
	p := c.producer(npTopic, 1)
	half := &proto.KeySharedMeta{KeySharedMode: proto.KeySharedMode_STICKY.Enum(),
		HashRanges: []*proto.IntRange{{Start: gproto.Int32(0), End: gproto.Int32(keyshared.RangeSize/2 - 1)}}}
	require.Nil(t, c.subscribe(npTopic, "s", 10, "c", half, 1))
	c.barrier(10)
	whole := keyshared.Range{Start: 0, End: keyshared.RangeSize - 1}
	var in, out string
	for i := 0; in == "" || out == ""; i++ {
		k := fmt.Sprint("key-", i)
		if keyshared.StickyKeyHash([]byte(k), whole) < keyshared.RangeSize/2 {
			in = k
		} else {
			out = k
		}
	}
	p.Send(out, "nobody's") // no consumer: released, not dropped
	p.Send(in, "taken")
	p.Send(in, "dropped") // its consumer has no permits left
	assert.Equal(t, []string{"taken"}, payloads(c.sync(10)))
	clk.Advance(engine.StatsWindow)
	ss := subStats(t, npStats(t, b, "np"), "s")
	assert.InDelta(t, 1.0/60, ss["msgDropRate"], 1e-9)
	assert.Equal(t, "STICKY", ss["keySharedMode"])
}
