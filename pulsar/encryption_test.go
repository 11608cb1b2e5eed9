package pulsar

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/pulsar/crypto"
)

// encCase is one way of producing: batching, compression, chunking.
type encCase struct {
	name     string
	batched  bool
	compress CompressionType
	chunk    int // ChunkMaxMessageSize, 0: no chunking
	size     int // payload bytes
}

var encCases = []encCase{
	{name: "single", size: 100},
	{name: "batched", batched: true, size: 100},
	{name: "batched-lz4", batched: true, compress: LZ4, size: 300},
	{name: "single-zstd", compress: ZSTD, size: 300},
	{name: "chunked", chunk: 1000, size: 5000},
	{name: "chunked-zlib", chunk: 700, compress: ZLib, size: 20000},
}

func (c encCase) producerOptions(topic string, kr crypto.KeyReader) ProducerOptions {
	o := ProducerOptions{Topic: topic, CompressionType: c.compress, DisableBatching: !c.batched,
		Encryption: &ProducerEncryptionInfo{KeyReader: kr, Keys: []string{"app-key"}}}
	if c.chunk > 0 {
		o.EnableChunking, o.ChunkMaxMessageSize, o.DisableBatching = true, uint(c.chunk), true
	}
	return o
}

// payload i of a case: compressible text with noise, so compressed chunks
// are still several.
func (c encCase) payload(i int) []byte {
	p := bytes.Repeat(fmt.Appendf(nil, "message %d ", i), c.size/10+1)[:c.size]
	if c.chunk > 0 {
		copy(p, csNoise(c.size/2, uint64(i)+1))
	}
	return p
}

// Messages encrypted by pulsargo's producer reach pulsargo's consumer
// decrypted: every key type, batched, compressed and chunked. The EC keys
// include openssl's with explicit curve parameters, as Pulsar's docs make
// them ("openssl ecparam -name secp521r1 -genkey -param_enc explicit").
func TestEncryptionRoundTrip(t *testing.T) {
	keys := []struct {
		kind string
		kr   crypto.KeyReader
	}{
		{"rsa", encKeys(t, "rsa")},
		{"ec", encKeys(t, "ec")},
		{"ec-p521-explicit", opensslKeys("p521-explicit", ".priv.pem")},
		{"ec-p384-explicit-pkcs8", opensslKeys("p384-explicit", ".pkcs8.pem")},
	}
	for _, k := range keys {
		kind, kr := k.kind, k.kr
		for _, c := range encCases {
			t.Run(kind+"-"+c.name, func(t *testing.T) {
				v := newCSEnv(t)
				topic := csTopic()
				cons := v.subscribe(ConsumerOptions{Topic: topic, Decryption: &MessageDecryptionInfo{KeyReader: kr}})
				p := testProducer(t, v.c, c.producerOptions(topic, kr))
				const n = 5
				for i := range n {
					p.SendAsync(csCtx(t), &ProducerMessage{Payload: c.payload(i), Key: "k"}, func(_ MessageID, _ *ProducerMessage, err error) {
						assert.NoError(t, err)
					})
				}
				require.NoError(t, p.Flush())
				for i := range n {
					m := csRecv(t, cons)
					csSame(t, m.Payload(), c.payload(i))
					assert.Equal(t, "k", m.Key())
					assert.Nil(t, m.GetEncryptionContext(), "a decrypted message has no encryption context")
					require.NoError(t, cons.Ack(m))
				}
			})
		}
	}
}

// On the wire: every entry (every chunk) carries the wrapped key and its
// own 12-byte IV; the payload is ciphertext of the compressed bytes (plus
// the 16-byte tag), and each chunk is a ciphertext of its slice, opened on
// its own; uncompressed_size is the plaintext's size.
func TestEncryptionWireFormat(t *testing.T) {
	kr := encKeys(t, "rsa")
	for _, c := range encCases {
		t.Run(c.name, func(t *testing.T) {
			v := newCSEnv(t)
			topic := csTopic()
			raw := subscribeRawEntries(t, v.b, topic)
			p := testProducer(t, v.c, c.producerOptions(topic, kr))
			want := c.payload(0)
			_, err := p.Send(csCtx(t), &ProducerMessage{Payload: want})
			require.NoError(t, err)
			entries := raw.wait(t, 1)
			if c.chunk > 0 {
				n := int(entries[0].Meta.GetNumChunksFromMsg())
				require.Greater(t, n, 1)
				entries = raw.wait(t, n)
			}
			mc, err := crypto.NewDefaultMessageCrypto("test", false, nil)
			require.NoError(t, err)
			ivs := map[string]bool{}
			var compressed []byte
			for _, e := range entries {
				md := e.Meta
				require.Len(t, md.GetEncryptionKeys(), 1)
				assert.Equal(t, "app-key", md.GetEncryptionKeys()[0].GetKey())
				assert.Len(t, md.GetEncryptionKeys()[0].GetValue(), 256, "RSA-2048 OAEP ciphertext")
				require.Len(t, md.GetEncryptionParam(), crypto.IVSize)
				ivs[string(md.GetEncryptionParam())] = true
				assert.False(t, bytes.Contains(e.Payload, []byte("message 0")), "payload is not plaintext")
				plain, err := mc.Decrypt(crypto.NewMessageMetadataSupplier(md), e.Payload, kr)
				require.NoError(t, err, "each entry opens on its own")
				assert.Len(t, e.Payload, len(plain)+crypto.TagSize)
				compressed = append(compressed, plain...)
			}
			assert.Len(t, ivs, len(entries), "a fresh IV per entry")
			md := entries[len(entries)-1].Meta
			if c.chunk > 0 {
				assert.EqualValues(t, len(compressed), md.GetTotalChunkMsgSize(), "total_chunk_msg_size counts compressed plaintext bytes")
			}
			body := compressed
			if c.compress != NoCompression {
				codec, err := compress.Lookup(compress.Type(c.compress))
				require.NoError(t, err)
				body, err = compress.Decompress(codec, nil, compressed, int(md.GetUncompressedSize()), 1<<26)
				require.NoError(t, err)
			}
			if c.batched {
				assert.EqualValues(t, 1, md.GetNumMessagesInBatch())
				assert.True(t, bytes.HasSuffix(body, want), "the batch holds the message")
			} else {
				csSame(t, body, want)
			}
			assert.EqualValues(t, len(body), md.GetUncompressedSize())
		})
	}
}

// Several keys: a consumer with the private key of any one of them reads.
func TestEncryptionWithSeveralKeys(t *testing.T) {
	rsaKeys, ecKeys := encKeys(t, "rsa"), encKeys(t, "ec")
	pubs := byName{"r": rsaKeys, "e": ecKeys}
	v := newCSEnv(t)
	topic := csTopic()
	c1 := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "r", Decryption: &MessageDecryptionInfo{KeyReader: rsaKeys}})
	c2 := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "e", Decryption: &MessageDecryptionInfo{KeyReader: ecKeys}})
	p := testProducer(t, v.c, ProducerOptions{Topic: topic, Encryption: &ProducerEncryptionInfo{KeyReader: pubs, Keys: []string{"r", "e"}}})
	_, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("to both")})
	require.NoError(t, err)
	assert.Equal(t, "to both", string(csRecv(t, c1).Payload()))
	assert.Equal(t, "to both", string(csRecv(t, c2).Payload()))
}

// byName is a KeyReader that picks a FileKeyReader by key name.
type byName map[string]*crypto.FileKeyReader

func (b byName) PublicKey(name string, meta map[string]string) (*crypto.EncryptionKeyInfo, error) {
	r, ok := b[name]
	if !ok {
		return nil, fmt.Errorf("no key %q", name)
	}
	return r.PublicKey(name, meta)
}

func (b byName) PrivateKey(name string, meta map[string]string) (*crypto.EncryptionKeyInfo, error) {
	r, ok := b[name]
	if !ok {
		return nil, fmt.Errorf("no key %q", name)
	}
	return r.PrivateKey(name, meta)
}

// A reader decrypts too, and a partitioned topic's partitions share the
// producer's data key.
func TestEncryptionReaderAndPartitions(t *testing.T) {
	kr := encKeys(t, "ec")
	v := newCSEnv(t)
	topic := csTopic()
	require.NoError(t, v.b.CreatePartitionedTopic(topic, 3))
	p := testProducer(t, v.c, ProducerOptions{Topic: topic, Encryption: &ProducerEncryptionInfo{KeyReader: kr, Keys: []string{"k"}}})
	for i := range 6 {
		_, err := p.Send(csCtx(t), &ProducerMessage{Payload: fmt.Appendf(nil, "m%d", i), Key: fmt.Sprint(i)})
		require.NoError(t, err)
	}
	cons := v.subscribe(ConsumerOptions{Topic: topic, Decryption: &MessageDecryptionInfo{KeyReader: kr}})
	got := map[string]bool{}
	for range 6 {
		m := csRecv(t, cons)
		got[string(m.Payload())] = true
	}
	assert.Len(t, got, 6)

	r, err := v.c.CreateReader(ReaderOptions{Topic: topic + "-partition-0", StartMessageID: EarliestMessageID(),
		Decryption: &MessageDecryptionInfo{KeyReader: kr}})
	require.NoError(t, err)
	defer r.Close()
	m, err := r.Next(csCtx(t))
	require.NoError(t, err)
	assert.Regexp(t, `^m\d$`, string(m.Payload()))
}
