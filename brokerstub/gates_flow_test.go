package brokerstub

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/admin"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gproto "google.golang.org/protobuf/proto"
)

// loadedTopic returns the loaded topic of that name.
func loadedTopic(t *testing.T, b *Broker, name string) *engine.Topic {
	t.Helper()
	tp := b.eng.LoadedTopic(name)
	require.NotNil(t, tp, "topic %s not loaded", name)
	return tp
}

// consumersOf lists the consumer of each delivered message, in order.
func consumersOf(msgs []ksMsg) []uint64 {
	out := make([]uint64, len(msgs))
	for i, m := range msgs {
		out[i] = m.Consumer
	}
	return out
}

// runs is n copies of id.
func runs(parts ...any) []uint64 {
	var out []uint64
	for i := 0; i < len(parts); i += 2 {
		for range parts[i+1].(int) {
			out = append(out, parts[i].(uint64))
		}
	}
	return out
}

// A Shared subscription's backlog goes out in runs of
// dispatcherMaxRoundRobinBatchSize messages per consumer (Pulsar's
// default 20); messages published one at a time still go round robin.
func TestSharedDispatchRuns(t *testing.T) {
	for _, tc := range []struct {
		batch int
		want  []uint64
	}{
		{0, runs(uint64(1), 20, uint64(2), 20, uint64(1), 5)}, // Pulsar's default, 20
		{3, runs(uint64(1), 3, uint64(2), 3, uint64(1), 3, uint64(2), 3)},
	} {
		b := RunT(t, Options{Gates: Gates{DispatcherMaxRoundRobinBatchSize: tc.batch}})
		c := dialKS(t, b)
		const topic = "persistent://public/default/rr"
		require.Nil(t, c.sub(topic, "s", proto.CommandSubscribe_Shared, 1, true))
		require.Nil(t, c.sub(topic, "s", proto.CommandSubscribe_Shared, 2, true))
		p := c.producer(topic, 9)
		n := len(tc.want)
		for i := range n {
			p.Send("", "m"+string(rune('a'+i%26)))
		}
		tp := loadedTopic(t, b, topic)
		require.NoError(t, tp.Call(func() { // one read of the whole backlog
			s := tp.Subs["s"]
			for _, cs := range s.Consumers {
				cs.Permits = 1000
			}
			s.Dispatch()
		}))
		c.barrier(1)
		got := append(c.sync(1), c.sync(2)...)
		require.Len(t, got, n)
		assert.Equal(t, tc.want, consumersOf(c.inboxOrder(got)), "batch %d", tc.batch)

		// Published one at a time with both consumers waiting: alternate.
		for i := range 4 {
			p.Send("", "live"+string(rune('0'+i)))
		}
		c.barrier(1)
		live := append(c.sync(1), c.sync(2)...)
		liveOrder := consumersOf(c.inboxOrder(live))
		assert.Len(t, liveOrder, 4)
		for i := 1; i < len(liveOrder); i++ {
			assert.NotEqual(t, liveOrder[i-1], liveOrder[i], "live messages alternate: %v", liveOrder)
		}
	}
}

// inboxOrder sorts messages of both consumers back into delivery order,
// which is position order for a fresh backlog.
func (c *ksClient) inboxOrder(msgs []ksMsg) []ksMsg {
	out := append([]ksMsg(nil), msgs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && posBefore(out[j].Pos, out[j-1].Pos); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func posBefore(a, b Position) bool {
	return a.Ledger < b.Ledger || a.Ledger == b.Ledger && a.Entry < b.Entry
}

// subscriptionRedeliveryTrackerEnabled=false: a redelivered message comes
// with redelivery count 0 (counted, it comes with 1).
func TestRedeliveryTrackerOff(t *testing.T) {
	for _, off := range []bool{false, true} {
		b := RunT(t, Options{Gates: Gates{DisableRedeliveryTracker: off}})
		sub := rawSubscriberOf(t, b, "persistent://public/default/redeliver", proto.CommandSubscribe_Shared, 10)
		pc, _ := rawProducer(t, b, "persistent://public/default/redeliver")
		rawSend(t, pc, "x")
		first := sub.expect(proto.BaseCommand_MESSAGE).GetMessage()
		assert.Zero(t, first.GetRedeliveryCount())
		sub.Send(&proto.BaseCommand{Type: proto.BaseCommand_REDELIVER_UNACKNOWLEDGED_MESSAGES.Enum(),
			RedeliverUnacknowledgedMessages: &proto.CommandRedeliverUnacknowledgedMessages{ConsumerId: gproto.Uint64(1)}})
		again := sub.expect(proto.BaseCommand_MESSAGE).GetMessage()
		want := uint32(1)
		if off {
			want = 0
		}
		assert.Equal(t, want, again.GetRedeliveryCount(), "tracker off: %v", off)
	}
}

// rawSubscriberOf is rawSubscriber with a subscription type.
func rawSubscriberOf(t *testing.T, b *Broker, topic string, typ proto.CommandSubscribe_SubType, permits uint32) *rawClient {
	t.Helper()
	c := dialRaw(t, b)
	c.connect()
	require.Nil(t, c.sub(topic, "s", typ, 1, true))
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{
		ConsumerId: gproto.Uint64(1), MessagePermits: gproto.Uint32(permits)}})
	return c
}

// rawSend publishes one message as producer 1 of c and waits for its
// receipt.
func rawSend(t *testing.T, c *rawClient, payload string) {
	t.Helper()
	seq := uint64(time.Now().UnixNano())
	c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
		ProducerId: gproto.Uint64(1), SequenceId: &seq, NumMessages: gproto.Int32(1)}},
		&proto.MessageMetadata{ProducerName: gproto.String("p"), SequenceId: &seq, PublishTime: gproto.Uint64(1)}, []byte(payload))
	c.expect(proto.BaseCommand_SEND_RECEIPT)
}

// maxUnackedMessagesPerBroker: the check (10 min after start, then every
// 30 s) finds the broker at its limit and blocks the subscriptions over
// their share; a subscription that passes its share while the broker is
// blocked stops too; acks below half the share resume one, a check below
// half the limit resumes all.
func TestMaxUnackedMessagesPerBroker(t *testing.T) {
	clk := NewFakeClock(time.Unix(1_700_000_000, 0))
	// Limit 10, share 50 % of it: 5 messages.
	b := RunT(t, Options{Clock: clk, Gates: Gates{MaxUnackedMessagesPerBroker: 10, MaxUnackedMessagesPerSubscriptionOnBrokerBlocked: 50}})
	c := dialKS(t, b)
	const ta, tb = "persistent://public/default/unacked-a", "persistent://public/default/unacked-b"
	require.Nil(t, c.sub(ta, "s", proto.CommandSubscribe_Shared, 1, true))
	require.Nil(t, c.sub(tb, "s", proto.CommandSubscribe_Shared, 2, true))
	c.flow(1, 100)
	c.flow(2, 100)
	pa, pb := c.producer(ta, 11), c.producer(tb, 12)
	for range 12 {
		pa.Send("", "a")
	}
	gotA := c.sync(1)
	require.Len(t, gotA, 12, "no limit before the first check")

	clk.Advance(engine.UnackedCheckFirst - time.Second)
	pa.Send("", "a13")
	require.Len(t, c.sync(1), 1, "the first check comes after 10 minutes")
	clk.Advance(time.Second) // the check: 13 >= 10, topic a holds 13 > 5
	require.True(t, b.eng.UnackedBlocked())
	pa.Send("", "a14")
	assert.Empty(t, c.sync(1), "blocked: over its share")
	code, body := adminDo(t, b, http.MethodGet, "/admin/v2/persistent/public/default/unacked-a/stats", "")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `"blockedSubscriptionOnUnackedMsgs":true`, "the stats say so, as Pulsar's dispatcher flag")

	for range 6 {
		pb.Send("", "b")
	}
	gotB := c.sync(2)
	require.Len(t, gotB, 6, "b passes its share with its 6th message")
	pb.Send("", "b7")
	assert.Empty(t, c.sync(2), "b is blocked once over its share")

	c.ack(1, positions(gotA[:12])...) // a holds 1 (a13) < 5/2: resumes
	assert.Len(t, c.sync(1), 1, "a14 after a's acks")

	clk.Advance(engine.UnackedCheckEvery) // 2 + 6 = 8 >= 10/2: the broker stays blocked
	assert.True(t, b.eng.UnackedBlocked())
	c.ack(2, positions(gotB)...)
	assert.Len(t, c.sync(2), 1, "b7 after b's acks")
	clk.Advance(engine.UnackedCheckEvery) // 2 + 1 < 5: unblocked
	assert.False(t, b.eng.UnackedBlocked())
	for range 8 {
		pb.Send("", "b")
	}
	assert.Len(t, c.sync(2), 8, "no broker limit in effect until the next check")
}

// maxActiveTransactionsPerCoordinator: a NEW_TXN over the limit gets no
// answer at all, as Pulsar; one can be opened again once another ends.
func TestMaxActiveTransactions(t *testing.T) {
	o := txnOptions()
	o.Gates.MaxActiveTransactionsPerCoordinator = 1
	b := RunT(t, o)
	c := dialTxn(t, b)
	first := c.newTxn(60_000)
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_NEW_TXN.Enum(), NewTxn: &proto.CommandNewTxn{
		RequestId: c.nextRID(), TxnTtlSeconds: gproto.Uint64(60_000), TcId: gproto.Uint64(0)}})
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
	c.expect(proto.BaseCommand_PONG) // fails on a NEW_TXN_RESPONSE first
	require.Nil(t, c.endTxn(first, true).Error)
	c.newTxn(60_000)
}

// maxConcurrentNonPersistentMessagePerConnection: SENDs to non-persistent
// topics arriving while more than the limit are in flight are dropped,
// answered in order with message id -1:-1, and counted in the publisher's
// msgDropRate.
func TestNonPersistentInFlightDrops(t *testing.T) {
	clk := NewFakeClock(time.Unix(1_700_000_000, 0))
	b := RunT(t, Options{Clock: clk, Gates: Gates{MaxConcurrentNonPersistentMessagePerConnection: -1}}) // Pulsar's 0
	const topic = "non-persistent://public/default/inflight"
	pc, _ := rawProducer(t, b, topic)
	tp := loadedTopic(t, b, topic)
	release := make(chan struct{})
	require.True(t, tp.Do(func() { <-release })) // the topic is busy
	for seq := range uint64(3) {
		pc.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
			ProducerId: gproto.Uint64(1), SequenceId: gproto.Uint64(seq), NumMessages: gproto.Int32(1)}},
			&proto.MessageMetadata{ProducerName: gproto.String("p"), SequenceId: gproto.Uint64(seq), PublishTime: gproto.Uint64(1)}, []byte("x"))
	}
	require.Eventually(t, func() bool { return len(tp.Ops) >= 3 }, 5*time.Second, time.Millisecond, "the three SENDs queued")
	close(release)
	for seq := range uint64(3) {
		r := pc.expect(proto.BaseCommand_SEND_RECEIPT).GetSendReceipt()
		require.Equal(t, seq, r.GetSequenceId(), "receipts in order")
		id := r.GetMessageId()
		if seq == 0 {
			assert.Equal(t, uint64(0), id.GetLedgerId(), "the first is published")
		} else {
			assert.Equal(t, ^uint64(0), id.GetLedgerId(), "dropped: -1:-1")
			assert.Equal(t, ^uint64(0), id.GetEntryId())
		}
	}
	clk.Advance(engine.StatsWindow)
	code, body := adminDo(t, b, http.MethodGet, "/admin/v2/non-persistent/public/default/inflight/stats", "")
	require.Equal(t, http.StatusOK, code, body)
	var st struct {
		Publishers []struct {
			MsgDropRate float64 `json:"msgDropRate"`
		} `json:"publishers"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &st))
	require.Len(t, st.Publishers, 1)
	assert.InDelta(t, 2.0/engine.StatsWindow.Seconds(), st.Publishers[0].MsgDropRate, 1e-9)
	assert.Zero(t, b.pipeConnsInFlight(), "nothing left in flight")
}

// pipeConnsInFlight sums the non-persistent SENDs in flight of every
// connection.
func (b *Broker) pipeConnsInFlight() int64 {
	b.srv.Mu.Lock()
	defer b.srv.Mu.Unlock()
	var n int64
	for c := range b.srv.Conns {
		n += c.Gate.NpInFlight.Load()
	}
	return n
}

// Partitioned stats merge publishers by their index in each partition's
// sorted list; with AggregatePublisherStatsByProducerName, those of
// clients that support partial producers merge by name.
func TestMergePublishers(t *testing.T) {
	pub := func(name string, rate float64, partial bool) *engine.PublisherStats {
		return &engine.PublisherStats{ProducerName: name, MsgRateIn: rate, AverageMsgSize: rate,
			SupportsPartialProducer: partial, Address: "x"}
	}
	got := admin.MergePublishers([][]*engine.PublisherStats{
		{pub("b", 1, false), pub("a", 2, false)},
		{pub("c", 4, false)},
		{pub("z", 8, true), pub("y", 16, true)},
		{pub("z", 32, true)},
	})
	require.Len(t, got, 4)
	assert.Equal(t, 6.0, got[0].MsgRateIn, "a (first by name) and c")
	assert.Equal(t, 3.0, got[0].AverageMsgSize)
	assert.Equal(t, 1.0, got[1].MsgRateIn, "b alone at index 1")
	raw, err := json.Marshal(got[0])
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "producerName")
	assert.NotContains(t, string(raw), "address")
	assert.NotContains(t, string(raw), "count")
	assert.Equal(t, "y", got[2].ProducerName)
	assert.Equal(t, "z", got[3].ProducerName)
	assert.Equal(t, 40.0, got[3].MsgRateIn)
	assert.Equal(t, true, got[3].SupportsPartialProducer)
}

// A client's supports_partial_producer shows in its publisher stats only
// with AggregatePublisherStatsByProducerName, as Pulsar's Producer sets it.
func TestSupportsPartialProducerStat(t *testing.T) {
	for _, on := range []bool{false, true} {
		b := RunT(t, Options{Gates: Gates{AggregatePublisherStatsByProducerName: on}})
		c := dialRaw(t, b)
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_CONNECT.Enum(), Connect: &proto.CommandConnect{
			ClientVersion: gproto.String("raw-test"), ProtocolVersion: gproto.Int32(20),
			FeatureFlags: &proto.FeatureFlags{SupportsPartialProducer: gproto.Bool(true)}}})
		c.expect(proto.BaseCommand_CONNECTED)
		require.Nil(t, c.attach("persistent://public/default/partial", 1))
		code, body := adminDo(t, b, http.MethodGet, "/admin/v2/persistent/public/default/partial/stats", "")
		require.Equal(t, http.StatusOK, code, body)
		var st struct {
			Publishers []struct {
				Partial bool `json:"supportsPartialProducer"`
			} `json:"publishers"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &st))
		require.Len(t, st.Publishers, 1)
		assert.Equal(t, on, st.Publishers[0].Partial)
	}
}
