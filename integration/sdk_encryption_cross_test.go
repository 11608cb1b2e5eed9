package integration

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	officialcrypto "github.com/apache/pulsar-client-go/pulsar/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/pulsar"
	"github.com/pulsargo/sdk/pulsar/crypto"
)

// encKeyFiles returns the paths of a PEM key pair of kind: "rsa-official"
// (the official client's own test keys), "rsa" or "ec" (P-256), generated.
func encKeyFiles(t *testing.T, kind string) (pub, priv string) {
	t.Helper()
	if kind == "rsa-official" {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/apache/pulsar-client-go").Output()
		require.NoError(t, err)
		dir := filepath.Join(strings.TrimSpace(string(out)), "pulsar", "crypto", "testdata")
		return filepath.Join(dir, "pub_key_rsa.pem"), filepath.Join(dir, "pri_key_rsa.pem")
	}
	var pk any
	var block *pem.Block
	if kind == "rsa" {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		require.NoError(t, err)
		pk, block = &k.PublicKey, &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}
	} else {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		der, err := x509.MarshalECPrivateKey(k)
		require.NoError(t, err)
		pk, block = &k.PublicKey, &pem.Block{Type: "EC PRIVATE KEY", Bytes: der}
	}
	der, err := x509.MarshalPKIXPublicKey(pk)
	require.NoError(t, err)
	dir := t.TempDir()
	pub, priv = filepath.Join(dir, "pub.pem"), filepath.Join(dir, "priv.pem")
	require.NoError(t, os.WriteFile(pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(priv, pem.EncodeToMemory(block), 0o600))
	return pub, priv
}

// encShape is how the messages of a cross test are produced.
type encShape struct {
	name    string
	batched bool
	chunked bool
}

var encShapes = []encShape{{name: "batched", batched: true}, {name: "chunked", chunked: true}}

// encPayload is message i of a shape: 40 KB (several 8 KiB chunks) for
// chunked, small otherwise.
func (s encShape) encPayload(i int) []byte {
	if s.chunked {
		return sdkProducerPayload(40<<10, byte(i+1))
	}
	return fmt.Appendf(nil, "encrypted message %d", i)
}

const encMessages = 4

// TestEncryptionOfficialToSDK: messages the official Go client encrypts
// (RSA keys; batched, compressed, chunked) are decrypted by pulsargo's
// consumer. The official client cannot encrypt with EC keys (its crypto
// wraps data keys with RSA only): its send fails, as its
// ProducerCryptoFailureActionFail says.
func TestEncryptionOfficialToSDK(t *testing.T) {
	b := startStub(t, brokerstub.Options{})
	off := officialClient(t, b.URL())
	sdk := sdkProducerClient(t, b)
	for _, kind := range []string{"rsa-official", "rsa", "ec"} {
		pub, priv := encKeyFiles(t, kind)
		for _, s := range encShapes {
			t.Run(kind+"/"+s.name, func(t *testing.T) {
				topic := newTopic(t)
				cons, err := sdk.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "s",
					Decryption: &pulsar.MessageDecryptionInfo{KeyReader: crypto.NewFileKeyReader(pub, priv)}})
				require.NoError(t, err)
				defer cons.Close()
				o := official.ProducerOptions{Topic: topic, CompressionType: official.LZ4, DisableBatching: !s.batched,
					BatchingMaxPublishDelay: 5 * time.Millisecond,
					Encryption:              &official.ProducerEncryptionInfo{KeyReader: officialcrypto.NewFileKeyReader(pub, priv), Keys: []string{"app"}}}
				if s.chunked {
					o.EnableChunking, o.ChunkMaxMessageSize, o.CompressionType = true, 8<<10, official.NoCompression
				}
				prod, err := off.CreateProducer(o)
				require.NoError(t, err)
				defer prod.Close()
				if kind == "ec" {
					_, err := prod.Send(ctxT(t), &official.ProducerMessage{Payload: s.encPayload(0)})
					require.Error(t, err, "the official client wraps data keys with RSA only")
					return
				}
				errs := make(chan error, encMessages)
				for i := range encMessages {
					prod.SendAsync(ctxT(t), &official.ProducerMessage{Payload: s.encPayload(i)},
						func(_ official.MessageID, _ *official.ProducerMessage, err error) { errs <- err })
				}
				require.NoError(t, prod.FlushWithCtx(ctxT(t)))
				for range encMessages {
					require.NoError(t, <-errs)
				}
				for i := range encMessages {
					m, err := cons.Receive(ctxT(t))
					require.NoError(t, err)
					assert.True(t, bytes.Equal(s.encPayload(i), m.Payload()), "message %d", i)
					assert.Nil(t, m.GetEncryptionContext())
					require.NoError(t, cons.Ack(m))
				}
			})
		}
	}
}

// TestEncryptionSDKToOfficial: messages pulsargo encrypts with RSA keys
// (batched, compressed, chunked) are decrypted by the official Go
// client's consumer. With EC keys, which the official client cannot
// unwrap, its consumer follows ConsumerCryptoFailureActionConsume: it
// delivers each entry still encrypted with its EncryptionContext, and
// pulsargo's crypto opens that.
func TestEncryptionSDKToOfficial(t *testing.T) {
	b := startStub(t, brokerstub.Options{})
	off := officialClient(t, b.URL())
	sdk := sdkProducerClient(t, b)
	for _, kind := range []string{"rsa-official", "rsa", "ec"} {
		pub, priv := encKeyFiles(t, kind)
		for _, s := range encShapes {
			t.Run(kind+"/"+s.name, func(t *testing.T) {
				topic := newTopic(t)
				dec := &official.MessageDecryptionInfo{KeyReader: officialcrypto.NewFileKeyReader(pub, priv)}
				if kind == "ec" {
					dec.ConsumerCryptoFailureAction = officialcrypto.ConsumerCryptoFailureActionConsume
				}
				cons, err := off.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s", Decryption: dec})
				require.NoError(t, err)
				defer cons.Close()
				o := pulsar.ProducerOptions{Topic: topic, CompressionType: pulsar.ZSTD, DisableBatching: !s.batched,
					BatchingMaxPublishDelay: 5 * time.Millisecond,
					Encryption:              &pulsar.ProducerEncryptionInfo{KeyReader: crypto.NewFileKeyReader(pub, priv), Keys: []string{"app"}}}
				if s.chunked {
					o.EnableChunking, o.ChunkMaxMessageSize, o.CompressionType = true, 8<<10, pulsar.NoCompression
				}
				prod, err := sdk.CreateProducer(o)
				require.NoError(t, err)
				defer prod.Close()
				msgs := make([]*pulsar.ProducerMessage, encMessages)
				for i := range msgs {
					msgs[i] = &pulsar.ProducerMessage{Payload: s.encPayload(i)}
				}
				sdkProduceAll(t, prod, msgs)
				if kind == "ec" {
					checkOfficialConsumesEncrypted(t, cons, s, pub, priv)
					return
				}
				for i, m := range receiveN(t, cons, encMessages) {
					assert.True(t, bytes.Equal(s.encPayload(i), m.Payload()), "message %d", i)
					require.NoError(t, cons.Ack(m))
				}
			})
		}
	}
}

// checkOfficialConsumesEncrypted receives what the official consumer
// delivered undecrypted and opens it with pulsargo's crypto from the
// EncryptionContext alone: a batch per entry, or each chunk on its own.
func checkOfficialConsumesEncrypted(t *testing.T, cons official.Consumer, s encShape, pub, priv string) {
	t.Helper()
	kr := crypto.NewFileKeyReader(pub, priv)
	open := func(m official.Message) []byte {
		ec := m.GetEncryptionContext()
		require.NotNil(t, ec, "an undecrypted message carries its EncryptionContext")
		md := &proto.MessageMetadata{EncryptionParam: ec.Param}
		for name, k := range ec.Keys {
			md.EncryptionKeys = append(md.EncryptionKeys, &proto.EncryptionKeys{Key: gproto.String(name), Value: k.KeyValue})
		}
		mc, err := crypto.NewDefaultMessageCrypto("test", false, nil)
		require.NoError(t, err)
		plain, err := mc.Decrypt(crypto.NewMessageMetadataSupplier(md), m.Payload(), kr)
		require.NoError(t, err)
		return plain
	}
	if s.chunked {
		for i := range encMessages {
			want := s.encPayload(i)
			var whole []byte
			for len(whole) < len(want) {
				whole = append(whole, open(receiveN(t, cons, 1)[0])...)
			}
			assert.True(t, bytes.Equal(want, whole), "message %d from its chunks", i)
		}
		return
	}
	// Batched and ZSTD-compressed: check the context describes it.
	m := receiveN(t, cons, 1)[0]
	ec := m.GetEncryptionContext()
	require.NotNil(t, ec)
	assert.Equal(t, official.ZSTD, ec.CompressionType)
	assert.Positive(t, ec.BatchSize)
	assert.Positive(t, ec.UncompressedSize)
	plain := open(m)
	assert.NotEmpty(t, plain)
}

// offSupplier is the official crypto's MessageMetadataSupplier over our
// wire metadata (its own takes the official client's internal type).
type offSupplier struct{ md *proto.MessageMetadata }

func (s offSupplier) EncryptionKeys() []officialcrypto.EncryptionKeyInfo {
	var out []officialcrypto.EncryptionKeyInfo
	for _, k := range s.md.EncryptionKeys {
		out = append(out, *officialcrypto.NewEncryptionKeyInfo(k.GetKey(), k.GetValue(), nil))
	}
	return out
}

func (s offSupplier) UpsertEncryptionKey(k officialcrypto.EncryptionKeyInfo) {
	for _, old := range s.md.EncryptionKeys {
		if old.GetKey() == k.Name() {
			old.Value = k.Key()
			return
		}
	}
	s.md.EncryptionKeys = append(s.md.EncryptionKeys, &proto.EncryptionKeys{Key: gproto.String(k.Name()), Value: k.Key()})
}

func (s offSupplier) EncryptionParam() []byte     { return s.md.EncryptionParam }
func (s offSupplier) SetEncryptionParam(b []byte) { s.md.EncryptionParam = b }

// TestCryptoVectorsBothWays: the message crypto alone, without a broker:
// what the official client's DefaultMessageCrypto seals (with its own test
// keys), pulsargo's opens, and the reverse.
func TestCryptoVectorsBothWays(t *testing.T) {
	pub, priv := encKeyFiles(t, "rsa-official")
	payload := []byte("a payload sealed by one client and opened by the other")

	offEnc, err := officialcrypto.NewDefaultMessageCrypto("off", true, quietLogger())
	require.NoError(t, err)
	md := &proto.MessageMetadata{}
	sealed, err := offEnc.Encrypt([]string{"k"}, officialcrypto.NewFileKeyReader(pub, priv), offSupplier{md}, payload)
	require.NoError(t, err)
	ours, err := crypto.NewDefaultMessageCrypto("ours", false, nil)
	require.NoError(t, err)
	plain, err := ours.Decrypt(crypto.NewMessageMetadataSupplier(md), sealed, crypto.NewFileKeyReader(pub, priv))
	require.NoError(t, err)
	assert.Equal(t, payload, plain)

	oursEnc, err := crypto.NewDefaultMessageCrypto("ours", true, nil)
	require.NoError(t, err)
	md = &proto.MessageMetadata{}
	sealed, err = oursEnc.Encrypt([]string{"k"}, crypto.NewFileKeyReader(pub, priv), crypto.NewMessageMetadataSupplier(md), payload)
	require.NoError(t, err)
	offDec, err := officialcrypto.NewDefaultMessageCrypto("off", false, quietLogger())
	require.NoError(t, err)
	plain, err = offDec.Decrypt(offSupplier{md}, sealed, officialcrypto.NewFileKeyReader(pub, priv))
	require.NoError(t, err)
	assert.Equal(t, payload, plain)
}
