package brokerstub

import (
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

// producerReq sends a PRODUCER and returns its request id.
func (c *ksClient) producerReq(topic string, id uint64, mode proto.ProducerAccessMode, epoch *uint64, initialSub string) uint64 {
	rid := c.nextRID()
	m := &proto.CommandProducer{Topic: &topic, ProducerId: &id, RequestId: &rid,
		ProducerAccessMode: mode.Enum(), TopicEpoch: epoch}
	if initialSub != "" {
		m.InitialSubscriptionName = &initialSub
	}
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: m})
	return rid
}

// answer reads until the answer to request rid (PRODUCER_SUCCESS or
// ERROR), skipping other frames.
func (c *ksClient) answer(rid uint64) *proto.BaseCommand {
	c.t.Helper()
	for {
		f, err := c.next()
		require.NoError(c.t, err, "waiting for the answer to %d", rid)
		switch f.Cmd.GetType() {
		case proto.BaseCommand_PRODUCER_SUCCESS:
			if f.Cmd.GetProducerSuccess().GetRequestId() == rid {
				return f.Cmd
			}
		case proto.BaseCommand_ERROR:
			if f.Cmd.GetError().GetRequestId() == rid {
				return f.Cmd
			}
		case proto.BaseCommand_PING:
			c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PONG.Enum(), Pong: &proto.CommandPong{}})
		}
	}
}

func (c *ksClient) mustProduce(topic string, id uint64, mode proto.ProducerAccessMode) *proto.CommandProducerSuccess {
	c.t.Helper()
	r := c.answer(c.producerReq(topic, id, mode, nil, ""))
	require.NotNil(c.t, r.GetProducerSuccess(), "got %s", r)
	return r.GetProducerSuccess()
}

func (c *ksClient) refused(topic string, id uint64, mode proto.ProducerAccessMode, epoch *uint64) *proto.CommandError {
	c.t.Helper()
	r := c.answer(c.producerReq(topic, id, mode, epoch, ""))
	require.NotNil(c.t, r.GetError(), "got %s", r)
	return r.GetError()
}

func (c *ksClient) closeProducer(id uint64) {
	c.t.Helper()
	rid := c.nextRID()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_CLOSE_PRODUCER.Enum(), CloseProducer: &proto.CommandCloseProducer{ProducerId: &id, RequestId: &rid}})
	c.readUntil(proto.BaseCommand_SUCCESS)
}

// TestAccessExclusive: an Exclusive producer gets topic epoch 0 and keeps
// out a second Exclusive one (ProducerFenced) and Shared ones
// (ProducerBusy); an Exclusive one is refused while Shared producers are
// attached; after it leaves the next exclusive admission moves the epoch.
func TestAccessExclusive(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/access-excl"
	c := dialKS(t, b)
	shared := c.mustProduce(topic, 1, proto.ProducerAccessMode_Shared)
	assert.Nil(t, shared.TopicEpoch, "no epoch before the first exclusive producer")
	e := c.refused(topic, 2, proto.ProducerAccessMode_Exclusive, nil)
	assert.Equal(t, proto.ServerError_ProducerFenced, e.GetError())
	assert.Equal(t, "Topic has existing shared producers", e.GetMessage())
	c.closeProducer(1)

	ex := c.mustProduce(topic, 3, proto.ProducerAccessMode_Exclusive)
	require.NotNil(t, ex.TopicEpoch)
	assert.Equal(t, uint64(0), ex.GetTopicEpoch())
	e = c.refused(topic, 4, proto.ProducerAccessMode_Exclusive, nil)
	assert.Equal(t, proto.ServerError_ProducerFenced, e.GetError())
	assert.Contains(t, e.GetMessage(), "Topic has an existing exclusive producer: "+ex.GetProducerName())
	e = c.refused(topic, 5, proto.ProducerAccessMode_Shared, nil)
	assert.Equal(t, proto.ServerError_ProducerBusy, e.GetError())

	// The exclusive producer can send.
	p := &ksProducer{c: c, id: 3, name: ex.GetProducerName()}
	p.Send("k", "x")
	c.closeProducer(3)
	again := c.mustProduce(topic, 6, proto.ProducerAccessMode_Exclusive)
	assert.Equal(t, uint64(1), again.GetTopicEpoch(), "each exclusive admission moves the epoch")
	c.closeProducer(6)
	sh := c.mustProduce(topic, 7, proto.ProducerAccessMode_Shared)
	assert.Equal(t, uint64(1), sh.GetTopicEpoch(), "Shared producers are told the epoch")
	c.closeProducer(7)

	// A producer coming back with an older epoch is fenced.
	e = c.refused(topic, 8, proto.ProducerAccessMode_Exclusive, gproto.Uint64(0))
	assert.Equal(t, proto.ServerError_ProducerFenced, e.GetError())
	assert.Equal(t, "Topic epoch has already moved. Current epoch: 1, Producer epoch: 0", e.GetMessage())

	// The epoch survives a restart.
	require.NoError(t, b.Restart())
	c = dialKS(t, b)
	assert.Equal(t, uint64(2), c.mustProduce(topic, 9, proto.ProducerAccessMode_Exclusive).GetTopicEpoch())
}

// TestAccessExclusiveWithFencing: it closes the attached producers and
// fails the waiting ones, then takes the topic.
func TestAccessExclusiveWithFencing(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/access-fence"
	c := dialKS(t, b)
	old := c.mustProduce(topic, 1, proto.ProducerAccessMode_Exclusive)
	w := dialKS(t, b)
	wr := w.producerReq(topic, 1, proto.ProducerAccessMode_WaitForExclusive, nil, "")
	require.False(t, w.answer(wr).GetProducerSuccess().GetProducerReady())

	f := dialKS(t, b)
	fenced := f.mustProduce(topic, 1, proto.ProducerAccessMode_ExclusiveWithFencing)
	assert.Equal(t, old.GetTopicEpoch()+1, fenced.GetTopicEpoch())

	e := w.answer(wr).GetError()
	require.NotNil(t, e, "the waiting producer is failed")
	assert.Equal(t, proto.ServerError_ProducerFenced, e.GetError())
	// The old producer was told to close.
	assert.Equal(t, uint64(1), c.readUntil(proto.BaseCommand_CLOSE_PRODUCER).GetCloseProducer().GetProducerId())
	e = c.refused(topic, 2, proto.ProducerAccessMode_Shared, nil)
	assert.Equal(t, proto.ServerError_ProducerBusy, e.GetError())
}

// TestAccessWaitForExclusive: a waiting producer is answered ready=false
// at once, and PRODUCER_SUCCESS ready=true when the exclusive producer
// leaves (and when the last Shared producer leaves); meanwhile Shared and
// Exclusive producers are refused, and a retried PRODUCER gets
// ServiceNotReady. A waiting producer whose connection drops leaves the
// queue.
func TestAccessWaitForExclusive(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/access-wait"
	c := dialKS(t, b)
	c.mustProduce(topic, 1, proto.ProducerAccessMode_Exclusive)

	gone := dialKS(t, b)
	gr := gone.producerReq(topic, 1, proto.ProducerAccessMode_WaitForExclusive, nil, "")
	require.False(t, gone.answer(gr).GetProducerSuccess().GetProducerReady())

	w := dialKS(t, b)
	wr := w.producerReq(topic, 1, proto.ProducerAccessMode_WaitForExclusive, nil, "")
	first := w.answer(wr).GetProducerSuccess()
	require.NotNil(t, first)
	assert.False(t, first.GetProducerReady())
	assert.Nil(t, first.TopicEpoch)
	retry := w.refused(topic, 1, proto.ProducerAccessMode_WaitForExclusive, nil)
	assert.Equal(t, proto.ServerError_ServiceNotReady, retry.GetError())

	assert.Equal(t, proto.ServerError_ProducerBusy, c.refused(topic, 2, proto.ProducerAccessMode_Shared, nil).GetError())
	assert.Equal(t, proto.ServerError_ProducerFenced, c.refused(topic, 3, proto.ProducerAccessMode_Exclusive, nil).GetError())

	require.NoError(t, gone.nc.Close()) // the first in the queue goes away
	waitQueue(t, b, topic, 1)           // ... once the broker has seen it go
	c.closeProducer(1)
	ready := w.answer(wr).GetProducerSuccess()
	require.NotNil(t, ready)
	assert.True(t, ready.GetProducerReady())
	assert.Equal(t, uint64(1), ready.GetTopicEpoch())
	p := &ksProducer{c: w, id: 1, name: ready.GetProducerName()}
	p.Send("k", "admitted")

	// Behind Shared producers, a waiter is admitted when the last leaves.
	topic2 := "persistent://public/default/access-wait2"
	c.mustProduce(topic2, 10, proto.ProducerAccessMode_Shared)
	wr2 := w.producerReq(topic2, 2, proto.ProducerAccessMode_WaitForExclusive, nil, "")
	require.False(t, w.answer(wr2).GetProducerSuccess().GetProducerReady())
	c.closeProducer(10)
	assert.True(t, w.answer(wr2).GetProducerSuccess().GetProducerReady())
}

// TestInitialSubscription: a PRODUCER with initial_subscription_name
// creates that durable subscription at the earliest position before the
// producer is answered, so it gets every message — those written before by
// others too; an existing subscription of that name is left as it is.
func TestInitialSubscription(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/initial-sub"
	c := dialKS(t, b)
	before := c.producer(topic, 1)
	first := before.Send("k", "before")

	r := c.answer(c.producerReq(topic, 2, proto.ProducerAccessMode_Shared, nil, "dlq-sub"))
	require.NotNil(t, r.GetProducerSuccess(), "got %s", r)
	cur, persisted, err := b.Cursor(topic, "dlq-sub")
	require.NoError(t, err, "the subscription exists once the producer is answered")
	assert.Equal(t, cur, persisted, "and is persisted")
	p := &ksProducer{c: c, id: 2, name: r.GetProducerSuccess().GetProducerName()}
	p.Send("k", "after")

	require.NoError(t, b.Restart())
	c = dialKS(t, b)
	c.subscribeTyped(topic, "dlq-sub", proto.CommandSubscribe_Shared, 1, 10)
	got := c.sync(1)
	require.Equal(t, []string{"before", "after"}, payloads(got))
	c.ack(1, first)

	// Named again by a new producer: the existing subscription is kept.
	r = c.answer(c.producerReq(topic, 3, proto.ProducerAccessMode_Shared, nil, "dlq-sub"))
	require.NotNil(t, r.GetProducerSuccess())
	cur, _, err = b.Cursor(topic, "dlq-sub")
	require.NoError(t, err)
	assert.Equal(t, first, cur.MarkDelete)
}

// waitQueue waits until n WaitForExclusive producers are queued on topic:
// a dropped connection leaves the queue on its own goroutine's time.
func waitQueue(t *testing.T, b *Broker, topic string, n int) {
	t.Helper()
	name, err := engine.ParseTopic(topic)
	require.NoError(t, err)
	tp, err := b.eng.GetTopic(name, false)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		var got int
		require.NoError(t, tp.Call(func() {
			if tp.Access != nil {
				got = len(tp.Access.Waiting)
			}
		}))
		return got == n
	}, 10*time.Second, time.Millisecond, "%d producers queued on %s", n, topic)
}

// TestAccessEpochSurvivesProcess: with a data dir the topic epoch is kept
// in the store (Pulsar keeps it in the managed ledger's properties), so a
// new broker process on the same directory moves it on from where it was
// and fences a producer that brings an older one.
func TestAccessEpochSurvivesProcess(t *testing.T) {
	dir := t.TempDir()
	topic := "persistent://public/default/access-epoch-dir"
	b, err := Start(Options{DataDir: dir})
	require.NoError(t, err)
	c := dialKS(t, b)
	assert.Equal(t, uint64(0), c.mustProduce(topic, 1, proto.ProducerAccessMode_Exclusive).GetTopicEpoch())
	c.closeProducer(1)
	assert.Equal(t, uint64(1), c.mustProduce(topic, 2, proto.ProducerAccessMode_Exclusive).GetTopicEpoch())
	require.NoError(t, b.Close())

	b = RunT(t, Options{DataDir: dir})
	c = dialKS(t, b)
	e := c.refused(topic, 3, proto.ProducerAccessMode_Exclusive, gproto.Uint64(0))
	assert.Equal(t, proto.ServerError_ProducerFenced, e.GetError())
	assert.Equal(t, "Topic epoch has already moved. Current epoch: 1, Producer epoch: 0", e.GetMessage())
	assert.Equal(t, uint64(2), c.mustProduce(topic, 4, proto.ProducerAccessMode_Exclusive).GetTopicEpoch())
	sh := "persistent://public/default/access-epoch-other"
	assert.Nil(t, c.mustProduce(sh, 5, proto.ProducerAccessMode_Shared).TopicEpoch, "another topic has no epoch")
}
