package brokerstub

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// rawProduce attaches producer 1 on c and sends single entries or batches;
// it returns the receipts' positions.
func rawProduce(t *testing.T, c *rawClient, topic string, entries ...[]string) []Position {
	t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: &topic, ProducerId: gproto.Uint64(1), RequestId: gproto.Uint64(100)}})
	name := c.expect(proto.BaseCommand_PRODUCER_SUCCESS).GetProducerSuccess().GetProducerName()
	var out []Position
	for seq, msgs := range entries {
		md := &proto.MessageMetadata{ProducerName: &name, SequenceId: gproto.Uint64(uint64(seq)), PublishTime: gproto.Uint64(1)}
		payload := []byte(msgs[0])
		if len(msgs) > 1 {
			payload = nil
			for _, m := range msgs {
				var err error
				payload, err = wire.AppendBatchEntry(payload, &proto.SingleMessageMetadata{}, []byte(m))
				require.NoError(t, err)
			}
			md.NumMessagesInBatch = gproto.Int32(int32(len(msgs)))
		}
		c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
			ProducerId: gproto.Uint64(1), SequenceId: gproto.Uint64(uint64(seq)), NumMessages: gproto.Int32(int32(len(msgs)))}}, md, payload)
		id := c.expect(proto.BaseCommand_SEND_RECEIPT).GetSendReceipt().GetMessageId()
		out = append(out, Position{Ledger: int64(id.GetLedgerId()), Entry: int64(id.GetEntryId())})
	}
	return out
}

func rawSubscribe(t *testing.T, c *rawClient, topic string, consumerID uint64, permits uint32) {
	t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &topic, Subscription: gproto.String("s"), SubType: proto.CommandSubscribe_Shared.Enum(),
		ConsumerId: &consumerID, RequestId: gproto.Uint64(200 + consumerID),
		InitialPosition: proto.CommandSubscribe_Earliest.Enum()}})
	c.expect(proto.BaseCommand_SUCCESS)
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{
		ConsumerId: &consumerID, MessagePermits: &permits}})
}

func rawAck(c *rawClient, consumerID uint64, p Position, ackSet []int64, requestID uint64) {
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_ACK.Enum(), Ack: &proto.CommandAck{
		ConsumerId: &consumerID, AckType: proto.CommandAck_Individual.Enum(), RequestId: &requestID,
		MessageId: []*proto.MessageIdData{{LedgerId: gproto.Uint64(uint64(p.Ledger)), EntryId: gproto.Uint64(uint64(p.Entry)), AckSet: ackSet}}}})
	for {
		f, err := c.next()
		if err != nil {
			c.t.Fatalf("waiting for ack response: %v", err)
		}
		if f.Cmd.GetType() == proto.BaseCommand_ACK_RESPONSE {
			return
		}
	}
}

// TestSeedPartialBatchAckSurvivesCrash is the seed scenario of the cursor
// issue, end to end through the broker: E0, a batch E1 = [A, B], E2; E0 is
// acknowledged and persisted; then only A is acknowledged; the periodic
// flush (no other ack, no close) persists E1's bitmap; after Crash a new
// consumer receives B — E1 with an ack set that excludes A — and E2, never
// E0.
//
// Protects internal/cursor/cursor.go, Cursor.AckIndividual: the
// "c.changed()" after "c.bitmaps.Set(p, res)".
// The mutation test (seed_mutation_test.go, PULSARGO_MUTATION=1) checks
// that this test fails without it.
func TestSeedPartialBatchAckSurvivesCrash(t *testing.T) {
	clock := NewFakeClock(time.Unix(1_700_000_000, 0))
	b := RunT(t, Options{Clock: clock, CursorFlushInterval: time.Minute})
	topic := "persistent://public/default/seed"
	c := dialRaw(t, b)
	c.connect()
	pos := rawProduce(t, c, topic, []string{"E0"}, []string{"A", "B"}, []string{"E2"})
	rawSubscribe(t, c, topic, 1, 10)
	for range 3 {
		c.expect(proto.BaseCommand_MESSAGE)
	}

	rawAck(c, 1, pos[0], nil, 1)
	_, persisted, err := b.Cursor(topic, "s")
	require.NoError(t, err)
	require.Equal(t, pos[0], persisted.MarkDelete, "E0's ack is persisted at once")

	// Ack A only: bit 0 cleared, bit 1 (B) still set. Within the same second
	// the mark-delete rate limit defers the persist to the periodic flush.
	rawAck(c, 1, pos[1], []int64{0b10}, 2)
	cur, persisted, err := b.Cursor(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, []int64{0b10}, cur.BatchAcks[pos[1]])
	assert.Nil(t, persisted.BatchAcks, "not flushed yet")

	clock.Advance(2 * time.Minute)
	require.Eventually(t, func() bool {
		_, p, err := b.Cursor(topic, "s")
		return err == nil && len(p.BatchAcks[pos[1]]) == 1 && p.BatchAcks[pos[1]][0] == 0b10
	}, 5*time.Second, 5*time.Millisecond, "the periodic flush persists the partial batch ack")

	require.NoError(t, b.Crash())

	c2 := dialRaw(t, b)
	c2.connect()
	rawSubscribe(t, c2, topic, 7, 10)
	f, err := c2.next()
	require.NoError(t, err)
	msg := f.Cmd.GetMessage()
	require.NotNil(t, msg, "got %s", f.Cmd)
	assert.Equal(t, uint64(pos[1].Entry), msg.GetMessageId().GetEntryId(), "E0 is not redelivered")
	assert.Equal(t, []int64{0b10}, msg.GetAckSet(), "A is marked acknowledged: only B is delivered")
	f, err = c2.next()
	require.NoError(t, err)
	assert.Equal(t, "E2", string(f.Payload))
}

// TestCrashLosesUnflushedAcks: without a flush, Crash forgets acks (as a
// killed broker would) and the messages come again; Restart keeps them.
func TestCrashLosesUnflushedAcks(t *testing.T) {
	clock := NewFakeClock(time.Unix(1_700_000_000, 0))
	b := RunT(t, Options{Clock: clock})
	topic := "persistent://public/default/crash"
	c := dialRaw(t, b)
	c.connect()
	pos := rawProduce(t, c, topic, []string{"x"}, []string{"y"}, []string{"z"})
	rawSubscribe(t, c, topic, 1, 10)
	for range 3 {
		c.expect(proto.BaseCommand_MESSAGE)
	}
	rawAck(c, 1, pos[0], nil, 1) // persisted at once (rate limit allows one)
	rawAck(c, 1, pos[1], nil, 2) // deferred: same second
	require.NoError(t, b.Crash())
	_, persisted, err := b.Cursor(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, pos[0], persisted.MarkDelete)

	c2 := dialRaw(t, b)
	c2.connect()
	rawSubscribe(t, c2, topic, 2, 10)
	f, err := c2.next()
	require.NoError(t, err)
	assert.Equal(t, "y", string(f.Payload), "the unflushed ack was lost with the crash")
	rawAck(c2, 2, pos[1], nil, 3)
	require.NoError(t, b.Restart())
	cur, _, err := b.Cursor(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, pos[1], cur.MarkDelete, "Restart flushes first")
}

// TestPartialBatchAckWithBatchIndexAckOff: with batch-index acks disabled,
// acking part of a batch must not acknowledge the rest of it.
func TestPartialBatchAckWithBatchIndexAckOff(t *testing.T) {
	b := RunT(t, Options{DisableBatchIndexAck: true})
	topic := "persistent://public/default/nobatchack"
	c := dialRaw(t, b)
	c.connect()
	pos := rawProduce(t, c, topic, []string{"a", "b", "c"})
	rawSubscribe(t, c, topic, 1, 10)
	c.expect(proto.BaseCommand_MESSAGE)
	rawAck(c, 1, pos[0], []int64{0b110}, 1) // only "a"
	cur, _, err := b.Cursor(topic, "s")
	require.NoError(t, err)
	assert.NotEqual(t, pos[0], cur.MarkDelete, "the batch must stay unacknowledged")
	assert.Nil(t, cur.BatchAcks)
}
