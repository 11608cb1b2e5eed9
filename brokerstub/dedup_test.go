package brokerstub

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

const dedupTopic = "persistent://public/default/dedup"

// namedProducer attaches producer id with the given name and returns its
// last_sequence_id.
func namedProducer(t *testing.T, c *rawClient, id uint64, name string) int64 {
	t.Helper()
	c.send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: gproto.String(dedupTopic), ProducerId: &id, RequestId: gproto.Uint64(500 + id), ProducerName: &name}})
	ok := c.expect(proto.BaseCommand_PRODUCER_SUCCESS).GetProducerSuccess()
	require.NotNil(t, ok.LastSequenceId)
	return ok.GetLastSequenceId()
}

// sendSeq sends one message and returns its receipt. md may carry chunk
// fields; highest is sent when > 0.
func sendSeq(t *testing.T, c *rawClient, id uint64, name string, seq, highest uint64, md *proto.MessageMetadata) *proto.CommandSendReceipt {
	t.Helper()
	if md == nil {
		md = &proto.MessageMetadata{}
	}
	md.ProducerName, md.SequenceId, md.PublishTime = &name, &seq, gproto.Uint64(1)
	send := &proto.CommandSend{ProducerId: &id, SequenceId: &seq, NumMessages: gproto.Int32(1)}
	if highest > 0 {
		send.HighestSequenceId = &highest
		md.HighestSequenceId = &highest
	}
	c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: send}, md, []byte("m"))
	r := c.expect(proto.BaseCommand_SEND_RECEIPT).GetSendReceipt()
	require.Equal(t, seq, r.GetSequenceId())
	return r
}

func isDupReceipt(r *proto.CommandSendReceipt) bool {
	return r.GetMessageId().GetLedgerId() == math.MaxUint64 && r.GetMessageId().GetEntryId() == math.MaxUint64
}

func storedEntries(t *testing.T, b *Broker) int {
	t.Helper()
	name, err := parseTopic(dedupTopic)
	require.NoError(t, err)
	tp, err := b.getTopic(name, false)
	require.NoError(t, err)
	n := 0
	require.NoError(t, tp.call(func() { n = tp.led.Len() }))
	return n
}

func TestDedupResendIsAnsweredNotStored(t *testing.T) {
	for _, crash := range []bool{false, true} {
		b := RunT(t, Options{BrokerDeduplicationEnabled: true, DataDir: t.TempDir()})
		c := dialRaw(t, b)
		c.connect()
		assert.Equal(t, int64(-1), namedProducer(t, c, 1, "p"), "unknown producer name")
		for seq := range uint64(3) {
			assert.False(t, isDupReceipt(sendSeq(t, c, 1, "p", seq, 0, nil)))
		}
		// A resend at or below the last stored id: receipt -1:-1, not stored.
		assert.True(t, isDupReceipt(sendSeq(t, c, 1, "p", 1, 0, nil)))
		assert.True(t, isDupReceipt(sendSeq(t, c, 1, "p", 2, 0, nil)))
		assert.Equal(t, 3, storedEntries(t, b))
		// Another producer name has its own sequence.
		other := dialRaw(t, b)
		other.connect()
		assert.Equal(t, int64(-1), namedProducer(t, other, 1, "q"))
		assert.False(t, isDupReceipt(sendSeq(t, other, 1, "q", 0, 0, nil)))

		if crash {
			require.NoError(t, b.Crash())
		} else {
			require.NoError(t, b.Restart())
		}
		// After the restart the ids come back from the stored entries.
		c = dialRaw(t, b)
		c.connect()
		assert.Equal(t, int64(2), namedProducer(t, c, 1, "p"), "last_sequence_id resumes the sequence")
		assert.True(t, isDupReceipt(sendSeq(t, c, 1, "p", 2, 0, nil)))
		assert.False(t, isDupReceipt(sendSeq(t, c, 1, "p", 3, 0, nil)))
		assert.Equal(t, 5, storedEntries(t, b))
	}
}

func TestDedupOffByDefault(t *testing.T) {
	b := RunT(t)
	c := dialRaw(t, b)
	c.connect()
	assert.Equal(t, int64(-1), namedProducer(t, c, 1, "p"))
	sendSeq(t, c, 1, "p", 0, 0, nil)
	assert.False(t, isDupReceipt(sendSeq(t, c, 1, "p", 0, 0, nil)))
	assert.Equal(t, 2, storedEntries(t, b), "Pulsar stores a resend twice without deduplication")
	c2 := dialRaw(t, b)
	c2.connect()
	assert.Equal(t, int64(-1), namedProducer(t, c2, 2, "p2"))
}

func TestDedupBatchesAndChunks(t *testing.T) {
	b := RunT(t, Options{BrokerDeduplicationEnabled: true})
	c := dialRaw(t, b)
	c.connect()
	namedProducer(t, c, 1, "p")
	// A batch of sequence ids 0..4 (highest_sequence_id 4).
	sendSeq(t, c, 1, "p", 0, 4, nil)
	assert.True(t, isDupReceipt(sendSeq(t, c, 1, "p", 3, 0, nil)))
	// Chunks: only the last chunk is checked and recorded.
	chunk := func(id int32) *proto.MessageMetadata {
		return &proto.MessageMetadata{Uuid: gproto.String("p-5"), ChunkId: &id, NumChunksFromMsg: gproto.Int32(2), TotalChunkMsgSize: gproto.Int32(2)}
	}
	assert.False(t, isDupReceipt(sendSeq(t, c, 1, "p", 5, 0, chunk(0))))
	assert.False(t, isDupReceipt(sendSeq(t, c, 1, "p", 5, 0, chunk(1))))
	assert.False(t, isDupReceipt(sendSeq(t, c, 1, "p", 5, 0, chunk(0))), "a resent first chunk is stored, as Pulsar does")
	assert.True(t, isDupReceipt(sendSeq(t, c, 1, "p", 5, 0, chunk(1))))
	assert.Equal(t, 4, storedEntries(t, b))
}

func TestDedupNamespacePolicy(t *testing.T) {
	b := RunT(t)
	c := dialRaw(t, b)
	c.connect()
	namedProducer(t, c, 1, "p")
	sendSeq(t, c, 1, "p", 0, 0, nil)
	on, off := true, false
	b.setNamespaceDeduplication("public/default", &on)
	assert.True(t, isDupReceipt(sendSeq(t, c, 1, "p", 0, 0, nil)), "switched on for the loaded topic")
	b.setNamespaceDeduplication("other/ns", &off)
	assert.True(t, isDupReceipt(sendSeq(t, c, 1, "p", 0, 0, nil)), "another namespace's policy does not apply")
	b.setNamespaceDeduplication("public/default", &off)
	assert.False(t, isDupReceipt(sendSeq(t, c, 1, "p", 0, 0, nil)))
	b.setNamespaceDeduplication("public/default", nil)
	assert.False(t, isDupReceipt(sendSeq(t, c, 1, "p", 0, 0, nil)), "back to the broker's option")
	assert.Equal(t, 3, storedEntries(t, b))
}
