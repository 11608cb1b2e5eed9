package integration

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar"
)

// sdkProducerClient returns an SDK client on the stub's in-memory dialer.
func sdkProducerClient(t *testing.T, b *brokerstub.Broker) pulsar.Client {
	t.Helper()
	c, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL(), Dialer: b.Dial, OperationTimeout: 10 * time.Second})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// sdkProducerPayload is n bytes that compress somewhat with every codec.
func sdkProducerPayload(n int, seed byte) []byte {
	key := [2]int{n, int(seed)}
	b, ok := sdkProducerPayloads.Load(key)
	if !ok {
		b, _ = sdkProducerPayloads.LoadOrStore(key, makeSDKProducerPayload(n, seed))
	}
	// A copy each time, so a client that wrote into a payload would still
	// be caught.
	return bytes.Clone(b.([]byte))
}

// sdkProducerPayloads caches makeSDKProducerPayload's results: byte by byte
// under the race detector, the 2.7 MiB of each case cost about a second of
// CPU, ten times over.
var sdkProducerPayloads sync.Map // [2]int{n, seed} -> []byte

func makeSDKProducerPayload(n int, seed byte) []byte {
	b := make([]byte, n)
	x := uint32(seed) + 7
	for i := range b {
		if i%32 < 8 {
			b[i] = seed
			continue
		}
		x = x*1103515245 + 12345
		b[i] = byte(x >> 16)
	}
	return b
}

// sdkProduceAll sends msgs with SendAsync and returns the ids in order.
func sdkProduceAll(t *testing.T, p pulsar.Producer, msgs []*pulsar.ProducerMessage) []pulsar.MessageID {
	t.Helper()
	ids := make([]pulsar.MessageID, len(msgs))
	errs := make(chan error, len(msgs))
	for i, m := range msgs {
		p.SendAsync(ctxT(t), m, func(id pulsar.MessageID, _ *pulsar.ProducerMessage, err error) {
			ids[i] = id
			errs <- err
		})
	}
	require.NoError(t, p.FlushWithCtx(ctxT(t)))
	for range msgs {
		require.NoError(t, <-errs)
	}
	return ids
}

// TestSDKProducerChunksReadByOfficialConsumer: messages produced by this
// SDK with chunking on — and with batching on too — are received whole and
// in order by the official Go client's consumer through the stub, with
// every codec; the ids match.
func TestSDKProducerChunksReadByOfficialConsumer(t *testing.T) {
	// Independent of other tests (its own stub, or go commands): it runs
	// beside them, so the integration module uses both cores.
	t.Parallel()
	codecs := map[pulsar.CompressionType]string{pulsar.NoCompression: "NONE", pulsar.LZ4: "LZ4", pulsar.ZLib: "ZLIB",
		pulsar.ZSTD: "ZSTD", pulsar.SNAPPY: "SNAPPY"}
	b := startStub(t, brokerstub.Options{MaxMessageSize: 256 << 10})
	sdk := sdkProducerClient(t, b)
	off := officialClient(t, b.URL())
	for codec := pulsar.NoCompression; codec <= pulsar.SNAPPY; codec++ {
		for _, batching := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/batching=%v", codecs[codec], batching), func(t *testing.T) {
				topic := newTopic(t)
				cons, err := off.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
				require.NoError(t, err)
				defer cons.Close()
				prod, err := sdk.CreateProducer(pulsar.ProducerOptions{Topic: topic, EnableChunking: true,
					DisableBatching: !batching, CompressionType: codec, BatchingMaxPublishDelay: 5 * time.Millisecond})
				require.NoError(t, err)
				defer prod.Close()

				msgs := []*pulsar.ProducerMessage{
					{Payload: []byte("first"), Key: "a"},
					{Payload: []byte("second"), Properties: map[string]string{"p": "1"}},
					{Payload: sdkProducerPayload(2<<20, 1), Key: "big", Properties: map[string]string{"size": "2MiB"}},
					{Payload: []byte("third")},
					{Payload: sdkProducerPayload(700<<10, 2)},
					{Payload: []byte("last"), Key: "z"},
				}
				ids := sdkProduceAll(t, prod, msgs)
				got := receiveN(t, cons, len(msgs))
				for i, m := range got {
					want := msgs[i]
					require.True(t, bytes.Equal(want.Payload, m.Payload()), "message %d: %d bytes, want %d", i, len(m.Payload()), len(want.Payload))
					assert.Equal(t, want.Key, m.Key(), "message %d key", i)
					assert.Equal(t, len(want.Properties), len(m.Properties()), "message %d properties", i)
					assert.Equal(t, prod.Name(), m.ProducerName())
					assert.Equal(t, ids[i].LedgerID(), m.ID().LedgerID(), "message %d ledger", i)
					assert.Equal(t, ids[i].EntryID(), m.ID().EntryID(), "message %d entry", i)
					if ids[i].BatchIdx() >= 0 {
						// (The official client says batch index 0 where this
						// SDK says -1: not batched.)
						assert.Equal(t, ids[i].BatchIdx(), m.ID().BatchIdx(), "message %d batch index", i)
					}
					if len(want.Payload) > 256<<10 {
						// The official id of a chunked message prints first;last
						// (with partition 0 where this SDK says -1: no partitions).
						cid, ok := ids[i].(pulsar.ChunkMessageID)
						require.True(t, ok, "Send returned %T for a chunked message", ids[i])
						f, l, p := cid.FirstChunkID(), cid.LastChunkID(), m.ID().PartitionIdx()
						assert.Equal(t, fmt.Sprintf("%d:%d:%d;%d:%d:%d", f.LedgerID(), f.EntryID(), p, l.LedgerID(), l.EntryID(), p),
							m.ID().String(), "chunked message %d id", i)
					}
					require.NoError(t, cons.Ack(m))
				}
				if batching {
					assert.GreaterOrEqual(t, ids[1].BatchIdx(), int32(0), "small messages should be batched")
				}
			})
		}
	}
}

// TestSDKProducerPartitionedReadByOfficialConsumer: a partitioned SDK
// producer's keyed messages are received by the official consumer with the
// same key on the same partition, in order per key.
func TestSDKProducerPartitionedReadByOfficialConsumer(t *testing.T) {
	b := startStub(t, brokerstub.Options{MaxMessageSize: 128 << 10})
	topic := newTopic(t)
	require.NoError(t, b.CreatePartitionedTopic(topic, 3))
	sdk := sdkProducerClient(t, b)
	off := officialClient(t, b.URL())
	cons, err := off.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	require.NoError(t, err)
	defer cons.Close()
	prod, err := sdk.CreateProducer(pulsar.ProducerOptions{Topic: topic, EnableChunking: true, CompressionType: pulsar.LZ4,
		BatchingMaxPublishDelay: 5 * time.Millisecond})
	require.NoError(t, err)
	defer prod.Close()
	var msgs []*pulsar.ProducerMessage
	for i := range 60 {
		size := 100
		if i%20 == 5 {
			size = 500 << 10
		}
		msgs = append(msgs, &pulsar.ProducerMessage{Payload: append([]byte(fmt.Sprintf("%03d:", i)), sdkProducerPayload(size, byte(i))...),
			Key: fmt.Sprintf("key-%d", i%4)})
	}
	ids := sdkProduceAll(t, prod, msgs)
	partOfKey := map[string]int32{}
	for i, id := range ids {
		k := msgs[i].Key
		if p, ok := partOfKey[k]; ok {
			assert.Equal(t, p, id.PartitionIdx(), "key %s on two partitions", k)
		}
		partOfKey[k] = id.PartitionIdx()
	}
	got := receiveN(t, cons, len(msgs))
	last := map[string]int{}
	for _, m := range got {
		var i int
		_, err := fmt.Sscanf(string(m.Payload()[:4]), "%03d:", &i)
		require.NoError(t, err)
		require.True(t, bytes.Equal(msgs[i].Payload, m.Payload()), "message %d differs", i)
		if prev, ok := last[m.Key()]; ok {
			assert.Greater(t, i, prev, "key %s out of order", m.Key())
		}
		last[m.Key()] = i
		require.NoError(t, cons.Ack(m))
	}
	st := prod.Stats()
	assert.Equal(t, uint64(len(msgs)), st.MessagesSent)
	assert.Positive(t, st.ChunksSent)
}
