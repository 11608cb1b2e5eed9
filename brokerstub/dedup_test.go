package brokerstub

import (
	"math"
	"net/http"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

const dedupTopic = "persistent://public/default/dedup"

// namedProducer attaches producer id with the given name and returns its
// last_sequence_id.
func namedProducer(t *testing.T, c *rawClient, id uint64, name string) int64 {
	t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
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
	name, err := engine.ParseTopic(dedupTopic)
	require.NoError(t, err)
	tp, err := b.eng.GetTopic(name, false)
	require.NoError(t, err)
	n := 0
	require.NoError(t, tp.Call(func() { n = tp.Led.Len() }))
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

// setPolicy sets (body != "") or removes a policy over the admin API and
// fails the test unless it was accepted.
func setPolicy(t *testing.T, b *Broker, path, body string) {
	t.Helper()
	method := http.MethodPost
	if body == "" {
		method = http.MethodDelete
	}
	code, out := adminDo(t, b, method, path, body)
	require.Equal(t, http.StatusNoContent, code, "%s %s: %s", method, path, out)
}

func TestDedupNamespacePolicy(t *testing.T) {
	b := RunT(t)
	c := dialRaw(t, b)
	c.connect()
	namedProducer(t, c, 1, "p")
	sendSeq(t, c, 1, "p", 0, 0, nil)
	const ns = "/admin/v2/namespaces/public/default/deduplication"
	setPolicy(t, b, ns, "true")
	assert.True(t, isDupReceipt(sendSeq(t, c, 1, "p", 0, 0, nil)), "switched on for the loaded topic, under the live producer")
	code, _ := adminDo(t, b, http.MethodPut, "/admin/v2/tenants/other", `{"allowedClusters":["standalone"]}`)
	require.Equal(t, http.StatusNoContent, code)
	code, _ = adminDo(t, b, http.MethodPut, "/admin/v2/namespaces/other/ns", "")
	require.Equal(t, http.StatusNoContent, code)
	setPolicy(t, b, "/admin/v2/namespaces/other/ns/deduplication", "false")
	assert.True(t, isDupReceipt(sendSeq(t, c, 1, "p", 0, 0, nil)), "another namespace's policy does not apply")
	setPolicy(t, b, ns, "false")
	assert.False(t, isDupReceipt(sendSeq(t, c, 1, "p", 0, 0, nil)))
	setPolicy(t, b, ns, "")
	assert.False(t, isDupReceipt(sendSeq(t, c, 1, "p", 0, 0, nil)), "back to the broker's option")
	assert.Equal(t, 3, storedEntries(t, b))
	code, _ = adminDo(t, b, http.MethodPost, ns, `"yes"`)
	assert.Equal(t, http.StatusBadRequest, code)
}

// TestDedupNamespacePolicyAfterRestart: the namespace policy is part of the
// admin state kept in the data dir, so a broker started again over it — a
// new process — deduplicates as before (it used to forget the policy).
func TestDedupNamespacePolicyAfterRestart(t *testing.T) {
	dir := t.TempDir()
	b, err := Start(Options{DataDir: dir})
	require.NoError(t, err)
	setPolicy(t, b, "/admin/v2/namespaces/public/default/deduplication", "true")
	c := dialRaw(t, b)
	c.connect()
	namedProducer(t, c, 1, "p")
	sendSeq(t, c, 1, "p", 0, 0, nil)
	require.NoError(t, b.Close())

	b = RunT(t, Options{DataDir: dir})
	c = dialRaw(t, b)
	c.connect()
	assert.Equal(t, int64(0), namedProducer(t, c, 1, "p"), "last_sequence_id from the stored entries")
	assert.True(t, isDupReceipt(sendSeq(t, c, 1, "p", 0, 0, nil)), "the resend is a duplicate in the new process")
	assert.Equal(t, 1, storedEntries(t, b))
}

// TestDedupTopicPolicy: a topic-level deduplicationEnabled policy overrides
// the namespace's and the broker's, as in Pulsar 4.x.
func TestDedupTopicPolicy(t *testing.T) {
	b := RunT(t, Options{BrokerDeduplicationEnabled: true})
	c := dialRaw(t, b)
	c.connect()
	namedProducer(t, c, 1, "p")
	sendSeq(t, c, 1, "p", 0, 0, nil)
	const topic = "/admin/v2/persistent/public/default/dedup/deduplicationEnabled"
	setPolicy(t, b, topic, "false")
	assert.False(t, isDupReceipt(sendSeq(t, c, 1, "p", 0, 0, nil)), "the topic's policy switched it off")
	setPolicy(t, b, "/admin/v2/namespaces/public/default/deduplication", "true")
	assert.False(t, isDupReceipt(sendSeq(t, c, 1, "p", 0, 0, nil)), "the topic's policy wins over the namespace's")
	setPolicy(t, b, topic, "")
	assert.True(t, isDupReceipt(sendSeq(t, c, 1, "p", 0, 0, nil)))
}
