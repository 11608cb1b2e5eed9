package pulsar

import (
	"bytes"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/clock"
	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
	"github.com/pulsargo/sdk/pulsar/crypto"
)

// sendEncrypted sends payloads encrypted with kr (batched when batched)
// and returns the last id.
func sendEncrypted(t *testing.T, v *csEnv, topic string, kr crypto.KeyReader, batched bool, payloads ...string) MessageID {
	t.Helper()
	p := testProducer(t, v.c, ProducerOptions{Topic: topic, DisableBatching: !batched, CompressionType: LZ4,
		Encryption: &ProducerEncryptionInfo{KeyReader: kr, Keys: []string{"k"}}})
	ids := make(chan MessageID, len(payloads))
	for _, s := range payloads {
		p.SendAsync(csCtx(t), &ProducerMessage{Payload: []byte(s)}, func(id MessageID, _ *ProducerMessage, err error) {
			assert.NoError(t, err)
			ids <- id
		})
	}
	require.NoError(t, p.Flush())
	var last MessageID
	for range payloads {
		last = <-ids
	}
	return last
}

// flakyReader fails its first fail PrivateKey calls.
type flakyReader struct {
	crypto.KeyReader
	fail  int32
	calls atomic.Int32
}

func (r *flakyReader) PrivateKey(name string, meta map[string]string) (*crypto.EncryptionKeyInfo, error) {
	if r.calls.Add(1) <= r.fail {
		return nil, errors.New("key store unavailable")
	}
	return r.KeyReader.PrivateKey(name, meta)
}

// ConsumerCryptoFailureActionFail (the default): the message is not
// delivered and comes back after the nack delay, decrypted once the key
// can be read.
func TestConsumerCryptoFailRedeliversLater(t *testing.T) {
	kr := encKeys(t, "rsa")
	v := newCSEnv(t)
	topic := csTopic()
	sendEncrypted(t, v, topic, kr, false, "hello")
	fr := &flakyReader{KeyReader: kr, fail: 2}
	cons := v.subscribe(ConsumerOptions{Topic: topic, NackRedeliveryDelay: 20 * time.Millisecond,
		Decryption: &MessageDecryptionInfo{KeyReader: fr}})
	m := csRecv(t, cons)
	assert.Equal(t, "hello", string(m.Payload()))
	assert.GreaterOrEqual(t, m.RedeliveryCount(), uint32(2), "delivered after two failed decryptions")
	assert.GreaterOrEqual(t, fr.calls.Load(), int32(3))
}

// Without Decryption an encrypted message is not delivered, and not
// acknowledged: a consumer with the key gets it.
func TestConsumerWithoutDecryptionKeepsTheMessage(t *testing.T) {
	kr := encKeys(t, "rsa")
	v := newCSEnv(t)
	topic := csTopic()
	sendEncrypted(t, v, topic, kr, true, "a", "b")
	cons := v.subscribe(ConsumerOptions{Topic: topic, NackRedeliveryDelay: 20 * time.Millisecond})
	csNone(t, cons, 300*time.Millisecond)
	cons.Close()
	cons = v.subscribe(ConsumerOptions{Topic: topic, Decryption: &MessageDecryptionInfo{KeyReader: kr}})
	assert.Equal(t, []string{"a", "b"}, csNames(csRecvN(t, cons, 2)))
}

// ConsumerCryptoFailureActionDiscard acknowledges what it cannot decrypt.
func TestConsumerCryptoDiscardAcknowledges(t *testing.T) {
	v := newCSEnv(t)
	topic := csTopic()
	last := sendEncrypted(t, v, topic, encKeys(t, "rsa"), false, "x", "y")
	cons := v.subscribe(ConsumerOptions{Topic: topic, Decryption: &MessageDecryptionInfo{
		KeyReader: encKeys(t, "rsa"), ConsumerCryptoFailureAction: crypto.ConsumerCryptoFailureActionDiscard}})
	v.waitCursor(topic, "s", allAcked(last))
	csNone(t, cons, 100*time.Millisecond)
}

// ConsumerCryptoFailureActionConsume delivers the entry still encrypted
// with an EncryptionContext that is enough to decrypt it: here a
// compressed batch.
func TestConsumerCryptoConsumeDeliversEncrypted(t *testing.T) {
	kr := encKeys(t, "ec")
	v := newCSEnv(t)
	topic := csTopic()
	sendEncrypted(t, v, topic, kr, true, "first", "second")
	cons := v.subscribe(ConsumerOptions{Topic: topic, Decryption: &MessageDecryptionInfo{
		ConsumerCryptoFailureAction: crypto.ConsumerCryptoFailureActionConsume}})
	m := csRecv(t, cons)
	ec := m.GetEncryptionContext()
	require.NotNil(t, ec)
	assert.Equal(t, LZ4, ec.CompressionType)
	assert.Equal(t, 2, ec.BatchSize)
	assert.Len(t, ec.Param, crypto.IVSize)
	require.Contains(t, ec.Keys, "k")
	require.NoError(t, cons.Ack(m))

	// Decrypt it as an application would, from the context alone.
	md := &proto.MessageMetadata{EncryptionParam: ec.Param}
	for name, k := range ec.Keys {
		md.EncryptionKeys = append(md.EncryptionKeys, &proto.EncryptionKeys{Key: gproto.String(name), Value: k.KeyValue})
	}
	mc, err := crypto.NewDefaultMessageCrypto("app", false, nil)
	require.NoError(t, err)
	plain, err := mc.Decrypt(crypto.NewMessageMetadataSupplier(md), m.Payload(), kr)
	require.NoError(t, err)
	codec, err := compress.Lookup(compress.LZ4)
	require.NoError(t, err)
	batch, err := compress.Decompress(codec, nil, plain, ec.UncompressedSize, 1<<20)
	require.NoError(t, err)
	var bodies []string
	require.NoError(t, wire.SplitBatch(batch, ec.BatchSize, func(_ int, _ *proto.SingleMessageMetadata, body []byte) error {
		bodies = append(bodies, string(body))
		return nil
	}))
	assert.Equal(t, []string{"first", "second"}, bodies)
}

// ProducerCryptoFailureActionFail: a message that cannot be encrypted
// fails with CryptoError; ProducerCryptoFailureActionSend sends it
// unencrypted.
func TestProducerCryptoFailureActions(t *testing.T) {
	bad := crypto.NewFileKeyReader("/nonexistent/pub.pem", "/nonexistent/priv.pem")
	v := newCSEnv(t)
	topic := csTopic()
	p := testProducer(t, v.c, ProducerOptions{Topic: topic, DisableBatching: true,
		Encryption: &ProducerEncryptionInfo{KeyReader: bad, Keys: []string{"k"}}})
	_, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("secret")})
	var pe *Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, CryptoError, pe.Result())
	require.ErrorIs(t, err, crypto.ErrKeyReader)

	raw := subscribeRawEntries(t, v.b, topic)
	ps := testProducer(t, v.c, ProducerOptions{Topic: topic, Encryption: &ProducerEncryptionInfo{KeyReader: bad, Keys: []string{"k"},
		ProducerCryptoFailureAction: crypto.ProducerCryptoFailureActionSend}})
	_, err = ps.Send(csCtx(t), &ProducerMessage{Payload: []byte("plain")})
	require.NoError(t, err)
	e := raw.wait(t, 1)[0]
	assert.Empty(t, e.Meta.GetEncryptionKeys())
	assert.Empty(t, e.Meta.GetEncryptionParam())
	cons := v.subscribe(ConsumerOptions{Topic: topic})
	assert.Equal(t, "plain", string(csRecv(t, cons).Payload()))
}

func TestProducerEncryptionOptionsChecked(t *testing.T) {
	v := newCSEnv(t)
	_, err := v.c.CreateProducer(ProducerOptions{Topic: csTopic(), Encryption: &ProducerEncryptionInfo{Keys: []string{"k"}}})
	require.ErrorIs(t, err, ErrInvalidOptions)
	_, err = v.c.CreateProducer(ProducerOptions{Topic: csTopic(), Encryption: &ProducerEncryptionInfo{Keys: []string{"k"},
		KeyReader: encKeys(t, "rsa"), ProducerCryptoFailureAction: 7}})
	require.ErrorIs(t, err, ErrInvalidOptions)
}

// The data key changes every DataKeyRotationInterval (on the producer's
// clock), and the consumer decrypts across the change.
func TestDataKeyRotation(t *testing.T) {
	kr := encKeys(t, "rsa")
	v := newCSEnv(t)
	topic := csTopic()
	raw := subscribeRawEntries(t, v.b, topic)
	p := testProducer(t, v.c, ProducerOptions{Topic: topic, DisableBatching: true,
		Encryption: &ProducerEncryptionInfo{KeyReader: kr, Keys: []string{"k"}}})
	fake := clock.NewFake(time.Now())
	p.(*partitionedProducer).crypto.clock = fake // before the first send
	send := func(s string) {
		_, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte(s)})
		require.NoError(t, err)
	}
	send("m0")
	fake.Advance(DataKeyRotationInterval - time.Minute)
	send("m1")
	fake.Advance(2 * time.Minute)
	send("m2")
	es := raw.wait(t, 3)
	wrapped := func(i int) string { return string(es[i].Meta.GetEncryptionKeys()[0].GetValue()) }
	assert.Equal(t, wrapped(0), wrapped(1), "the same data key within the interval")
	assert.NotEqual(t, wrapped(1), wrapped(2), "a new data key after it")

	cons := v.subscribe(ConsumerOptions{Topic: topic, Decryption: &MessageDecryptionInfo{KeyReader: kr}})
	assert.Equal(t, []string{"m0", "m1", "m2"}, csNames(csRecvN(t, cons, 3)))
}

// Forged encryption metadata from the wire (a truncated or forged wrapped
// key, a bad IV, an absurd key count) never panics and goes to the
// failure action; the consumer goes on with the next message.
func TestConsumerForgedEncryptionMetadata(t *testing.T) {
	kr := encKeys(t, "rsa")
	v := newCSEnv(t)
	topic := csTopic()
	// A real encrypted entry, to forge from.
	sendEncrypted(t, v, topic, kr, false, "genuine")
	raw := subscribeRawEntries(t, v.b, topic)
	real := raw.wait(t, 1)[0]
	rp := v.raw(topic, -1)
	good := real.Meta.GetEncryptionKeys()[0]
	forge := func(edit func(md *proto.MessageMetadata)) {
		md := rp.Meta()
		md.EncryptionKeys = []*proto.EncryptionKeys{{Key: good.Key, Value: good.Value}}
		md.EncryptionParam = real.Meta.EncryptionParam
		md.Compression, md.UncompressedSize = real.Meta.Compression, real.Meta.UncompressedSize
		edit(md)
		_, err := rp.SendRaw(csCtx(t), md, real.Payload)
		require.NoError(t, err)
	}
	forge(func(md *proto.MessageMetadata) { md.EncryptionKeys[0].Value = good.Value[:100] })
	forge(func(md *proto.MessageMetadata) { md.EncryptionKeys[0].Value = make([]byte, 256) })
	forge(func(md *proto.MessageMetadata) { md.EncryptionParam = []byte{1, 2, 3} })
	forge(func(md *proto.MessageMetadata) { md.EncryptionParam = make([]byte, 4096) })
	forge(func(md *proto.MessageMetadata) {
		for i := range 1000 {
			md.EncryptionKeys = append(md.EncryptionKeys, &proto.EncryptionKeys{Key: gproto.String(fmt.Sprint(i)), Value: []byte{1}})
		}
		md.EncryptionKeys[0].Value = []byte{0}
	})
	forge(func(md *proto.MessageMetadata) {}) // a genuine copy: decrypts
	cons := v.subscribe(ConsumerOptions{Topic: topic, Decryption: &MessageDecryptionInfo{KeyReader: kr,
		ConsumerCryptoFailureAction: crypto.ConsumerCryptoFailureActionDiscard}})
	assert.Equal(t, []string{"genuine", "genuine"}, csNames(csRecvN(t, cons, 2)))
	csNone(t, cons, 100*time.Millisecond)
}

// A topic unloaded in the middle of an encrypted chunked message: the
// chunks written again after the reconnect are sealed again (a fresh IV
// each) and the consumer decrypts the whole message.
func TestEncryptedChunksResentAfterUnload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		kr := encKeys(t, "rsa")
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, MaxMessageSize: 32 << 10})
		c := testClient(t, b)
		topic := testTopic(t)
		p := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true, DisableBatching: true, CompressionType: LZ4,
			Encryption: &ProducerEncryptionInfo{KeyReader: kr, Keys: []string{"k"}}})
		var sends atomic.Int32
		unloaded := make(chan struct{})
		b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
			if ev.Type == "SEND" && sends.Add(1) == 5 {
				go func() {
					if err := b.Unload(topic); err != nil {
						t.Error(err)
					}
					close(unloaded)
				}()
				<-unloaded
			}
			return brokerstub.Action{}
		})
		msgs := []*ProducerMessage{{Payload: []byte("before")}, {Payload: payloadOf(300<<10, 3)}, {Payload: []byte("after")}}
		sendAllAsync(t, p, msgs)
		<-unloaded
		b.Intercept(nil)
		cons, err := c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "s", SubscriptionInitialPosition: SubscriptionPositionEarliest,
			Decryption: &MessageDecryptionInfo{KeyReader: kr}})
		require.NoError(t, err)
		defer cons.Close()
		for i, want := range msgs {
			m, err := cons.Receive(csCtx(t))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(want.Payload, m.Payload()), "message %d", i)
		}
	})
}
