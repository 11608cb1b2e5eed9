package brokerstub

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

func stickyMeta(ranges ...int32) *proto.KeySharedMeta {
	m := &proto.KeySharedMeta{KeySharedMode: proto.KeySharedMode_STICKY.Enum()}
	for i := 0; i < len(ranges); i += 2 {
		m.HashRanges = append(m.HashRanges, &proto.IntRange{Start: gproto.Int32(ranges[i]), End: gproto.Int32(ranges[i+1])})
	}
	return m
}

// TestKeySharedStickyRanges: overlapping sticky ranges are refused with
// ConsumerAssignError and Pulsar's message (testHashRangeConflict); a
// freed range can be taken again.
func TestKeySharedStickyRanges(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/ks-sticky"
	c := dialKS(t, b)
	require.Nil(t, c.subscribe(topic, "s", 1, "c1", stickyMeta(0, 29999, 40000, 65535), 10))
	require.Nil(t, c.subscribe(topic, "s", 2, "c2", stickyMeta(30000, 39999), 10))
	for _, r := range [][]int32{{0, 65535}, {1, 1}, {29000, 30500}, {39999, 40500}} {
		e := c.subscribe(topic, "s", 3, "c3", stickyMeta(r...), 10)
		require.NotNil(t, e, "%v", r)
		assert.Equal(t, proto.ServerError_ConsumerAssignError, e.GetError())
		assert.True(t, strings.HasPrefix(e.GetMessage(), "Range conflict with consumer Consumer{subscription=PersistentSubscription{topic="+topic+", name=s}, consumerId="), e.GetMessage())
	}
	e := c.subscribe(topic, "s", 3, "c3", stickyMeta(10, 20, 15, 30), 10)
	require.NotNil(t, e)
	assert.Equal(t, "Consumer's own ranges conflict: [10,20] overlaps with [15,30]", e.GetMessage())

	st, err := b.KeyShared(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, "STICKY", st.Mode)
	assert.Equal(t, "HashRangeExclusive", st.Selector)
	require.Len(t, st.Consumers, 2)
	assert.Equal(t, []HashRange{{0, 29999}, {40000, 65535}}, st.Consumers[0].Ranges)
	assert.Equal(t, []HashRange{{30000, 39999}}, st.Consumers[1].Ranges)

	// Messages follow the ranges.
	p := dialKS(t, b).producer(topic, 1)
	var want1, want2 []Position
	for i := range 40 {
		k := fmt.Sprint("k", i)
		pos := p.Send(k, k)
		if h := st.Hash([]byte(k)); h >= 30000 && h <= 39999 {
			want2 = append(want2, pos)
		} else {
			want1 = append(want1, pos)
		}
	}
	got1, got2 := positions(c.sync(1)), positions(c.sync(2))
	require.NotEmpty(t, want2)
	assert.Equal(t, want1[:min(10, len(want1))], got1)
	assert.Equal(t, want2[:min(10, len(want2))], got2)

	c.closeConsumer(1)
	require.Nil(t, c.subscribe(topic, "s", 4, "c4", stickyMeta(40000, 40600), 10))
	require.Nil(t, c.subscribe(topic, "s", 5, "c5", stickyMeta(500, 29999), 10))
}

// TestKeySharedPolicyChangesOnlyWhenEmpty: a consumer with another mode or
// out-of-order setting is refused while consumers are attached
// (ConsumerBusy, Pulsar's messages), and accepted once they are gone.
func TestKeySharedPolicyChangesOnlyWhenEmpty(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/ks-policy"
	c := dialKS(t, b)
	require.Nil(t, c.subscribe(topic, "s", 1, "c1", nil, 10))
	e := c.subscribe(topic, "s", 2, "c2", stickyMeta(0, 65535), 10)
	require.NotNil(t, e)
	assert.Equal(t, proto.ServerError_ConsumerBusy, e.GetError())
	assert.Equal(t, "Subscription is of different type. Active subscription key_shared mode of 'AUTO_SPLIT' is different than the connecting consumer's key_shared mode 'STICKY'.", e.GetMessage())
	e = c.subscribe(topic, "s", 2, "c2", &proto.KeySharedMeta{KeySharedMode: proto.KeySharedMode_AUTO_SPLIT.Enum(), AllowOutOfOrderDelivery: gproto.Bool(true)}, 10)
	require.NotNil(t, e)
	assert.Equal(t, "Subscription is of different type. Active subscription does not allow out of order delivery while the connecting consumer allows it.", e.GetMessage())

	c.closeConsumer(1)
	require.Nil(t, c.subscribe(topic, "s", 2, "c2", stickyMeta(0, 65535), 10))
	st, err := b.KeyShared(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, "STICKY", st.Mode)
}

// TestKeySharedCumulativeAckIsIgnored: as Pulsar's broker, a cumulative
// ack on Key_Shared is ignored (clients refuse to send one); the receipt
// reports success and nothing is acknowledged.
func TestKeySharedCumulativeAckIsIgnored(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/ks-cumulative"
	c := dialKS(t, b)
	c.mustSubscribe(topic, 1, "c1", 10)
	p := dialKS(t, b).producer(topic, 1)
	p.Send("k", "a")
	last := p.Send("k", "b")
	require.Len(t, c.sync(1), 2)
	rid := c.nextRID()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_ACK.Enum(), Ack: &proto.CommandAck{
		ConsumerId: gproto.Uint64(1), AckType: proto.CommandAck_Cumulative.Enum(), RequestId: &rid,
		MessageId: []*proto.MessageIdData{{LedgerId: gproto.Uint64(uint64(last.Ledger)), EntryId: gproto.Uint64(uint64(last.Entry))}}}})
	r := c.readUntil(proto.BaseCommand_ACK_RESPONSE).GetAckResponse()
	assert.Nil(t, r.Error)
	cur, _, err := b.Cursor(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, int64(-1), cur.MarkDelete.Entry, "nothing acknowledged")
	st, err := b.KeyShared(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, 2, st.Consumers[0].Pending)
}

// TestKeySharedRoutesByStickyKey: the ordering key wins over the partition
// key; a base64 partition key is routed by its decoded bytes; a message
// without keys by "<producer>-<sequence>".
func TestKeySharedRoutesByStickyKey(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/ks-sticky-key"
	cs := make([]*ksClient, 3)
	for i := range cs {
		cs[i] = dialKS(t, b)
		cs[i].mustSubscribe(topic, uint64(i+1), fmt.Sprint("c", i+1), 100)
	}
	st, err := b.KeyShared(topic, "s")
	require.NoError(t, err)
	// Keys of distinct consumers, so that each case tells which key routed.
	owner := func(k string) string {
		c, ok := st.ConsumerFor([]byte(k))
		require.True(t, ok)
		return c.Name
	}
	var k1, k2 string
	for i := 0; k2 == ""; i++ {
		k := fmt.Sprint("x", i)
		switch {
		case k1 == "":
			k1 = k
		case owner(k) != owner(k1):
			k2 = k
		}
	}
	p := dialKS(t, b).producer(topic, 1)
	b64 := true
	cases := []struct {
		md   *proto.MessageMetadata
		want string
	}{
		{&proto.MessageMetadata{OrderingKey: []byte(k1), PartitionKey: &k2}, owner(k1)},
		{&proto.MessageMetadata{OrderingKey: []byte(k2), PartitionKey: &k1}, owner(k2)},
		{&proto.MessageMetadata{PartitionKey: gproto.String(base64.StdEncoding.EncodeToString([]byte(k1))), PartitionKeyB64Encoded: &b64}, owner(k1)},
		{&proto.MessageMetadata{PartitionKey: gproto.String(base64.StdEncoding.EncodeToString([]byte(k2))), PartitionKeyB64Encoded: &b64}, owner(k2)},
		{&proto.MessageMetadata{}, owner(fmt.Sprintf("%s-%d", p.name, 4))},
		{&proto.MessageMetadata{}, owner(fmt.Sprintf("%s-%d", p.name, 5))},
	}
	for i, c := range cases {
		pos := p.sendMeta(c.md, fmt.Sprint(i))
		got := ""
		for j, cl := range cs {
			for _, m := range cl.sync(uint64(j + 1)) {
				require.Equal(t, pos, m.Pos)
				got = fmt.Sprint("c", j+1)
			}
		}
		assert.Equal(t, c.want, got, "case %d", i)
	}
}

// TestKeySharedSameNameConsumersAreDistinct: two consumers named alike get
// different hash ranges and both receive messages.
func TestKeySharedSameNameConsumersAreDistinct(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/ks-same-name"
	c1, c2 := dialKS(t, b), dialKS(t, b)
	c1.mustSubscribe(topic, 1, "same", 100)
	c2.mustSubscribe(topic, 1, "same", 100)
	st, err := b.KeyShared(topic, "s")
	require.NoError(t, err)
	require.Len(t, st.Consumers, 2)
	assert.NotEqual(t, st.Consumers[0].Ranges, st.Consumers[1].Ranges)
	p := dialKS(t, b).producer(topic, 1)
	for i := range 100 {
		p.Send(fmt.Sprint("k", i), "x")
	}
	n1, n2 := len(c1.sync(1)), len(c2.sync(1))
	assert.Equal(t, 100, n1+n2)
	assert.Positive(t, n1)
	assert.Positive(t, n2)
}

// TestKeySharedHashRangeAutoSplit: with consistent hashing off, AUTO_SPLIT
// consumers split the range in halves, as Pulsar's auto-split selector.
func TestKeySharedHashRangeAutoSplit(t *testing.T) {
	b := RunT(t, Options{KeyShared: KeySharedOptions{HashRangeAutoSplit: true}})
	topic := "persistent://public/default/ks-autosplit"
	c := dialKS(t, b)
	c.mustSubscribe(topic, 1, "c1", 10)
	c.mustSubscribe(topic, 2, "c2", 10)
	st, err := b.KeyShared(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, "HashRangeAutoSplit", st.Selector)
	assert.Equal(t, HashRange{0, 65535}, st.KeyHashRange)
	assert.Equal(t, []HashRange{{32769, 65536}}, st.Consumers[0].Ranges)
	assert.Equal(t, []HashRange{{0, 32768}}, st.Consumers[1].Ranges)
}

func TestKeySharedInspectionErrors(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/ks-inspect"
	c := dialKS(t, b)
	c.mustSubscribe(topic, 1, "c1", 10)
	_, err := b.KeyShared(topic, "nope")
	assert.True(t, errors.Is(err, ErrNoSubscription), "%v", err)
	rawSubscribe(t, c.rawClient, "persistent://public/default/ks-inspect-shared", 9, 1)
	_, err = b.KeyShared("persistent://public/default/ks-inspect-shared", "s")
	assert.True(t, errors.Is(err, ErrNotKeyShared), "%v", err)
	st, err := b.KeyShared(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, "ConsistentHashing", st.Selector)
	assert.Equal(t, HashRange{1, 65535}, st.KeyHashRange)
	assert.Equal(t, 2000, st.LookAheadLimit)
	assert.Equal(t, []HashRange{{1, 65535}}, st.Consumers[0].Ranges)
	assert.Equal(t, int64(10), st.Consumers[0].Permits)
}

// TestKeySharedSeekStartsAfresh: a seek disconnects the consumers and
// forgets the dispatcher's state; a consumer that comes back reads from the
// seek position.
func TestKeySharedSeekStartsAfresh(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/ks-seek"
	c := dialKS(t, b)
	c.mustSubscribe(topic, 1, "c1", 100)
	p := dialKS(t, b).producer(topic, 1)
	var all []Position
	for i := range 5 {
		all = append(all, p.Send(fmt.Sprint("k", i%2), fmt.Sprint(i)))
	}
	require.Equal(t, all, positions(c.sync(1)))
	rid := c.nextRID()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SEEK.Enum(), Seek: &proto.CommandSeek{ConsumerId: gproto.Uint64(1), RequestId: &rid,
		MessageId: &proto.MessageIdData{LedgerId: gproto.Uint64(uint64(all[2].Ledger)), EntryId: gproto.Uint64(uint64(all[2].Entry))}}})
	c.readUntil(proto.BaseCommand_CLOSE_CONSUMER)
	c.readUntil(proto.BaseCommand_SUCCESS)
	c.mustSubscribe(topic, 2, "c1", 100)
	assert.Equal(t, all[2:], positions(c.sync(2)))
	st, err := b.KeyShared(topic, "s")
	require.NoError(t, err)
	require.Len(t, st.Consumers, 1)
	assert.Equal(t, 3, st.Consumers[0].Pending)
	assert.Empty(t, st.Consumers[0].DrainingHashes)
}
