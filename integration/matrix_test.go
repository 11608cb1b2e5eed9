package integration

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar"
)

// matrixCase is one row of the cross-client matrix: how the messages are
// produced.
type matrixCase struct {
	name        string
	batched     bool
	chunked     bool
	ours        pulsar.CompressionType
	theirs      official.CompressionType
	payloadSize int
}

func matrixCases() []matrixCase {
	cases := []matrixCase{
		{name: "plain", payloadSize: 100},
		{name: "batched", batched: true, payloadSize: 100},
		{name: "chunked", chunked: true, payloadSize: matrixChunkedSize},
	}
	codecs := []struct {
		name   string
		ours   pulsar.CompressionType
		theirs official.CompressionType
	}{
		{"lz4", pulsar.LZ4, official.LZ4},
		{"zlib", pulsar.ZLib, official.ZLib},
		{"zstd", pulsar.ZSTD, official.ZSTD},
		{"snappy", pulsar.SNAPPY, official.SNAPPY},
	}
	for _, c := range codecs {
		cases = append(cases,
			matrixCase{name: "compressed-" + c.name, batched: true, ours: c.ours, theirs: c.theirs, payloadSize: 2000},
			matrixCase{name: "chunked-" + c.name, chunked: true, ours: c.ours, theirs: c.theirs, payloadSize: matrixChunkedSize})
	}
	return cases
}

// matrixPayload is message i of a case, with the index up front: small
// payloads are compressible text; large ones are pseudo-random, so they
// still need chunks after compression. Each call returns a fresh copy (a
// client that wrote into a payload it was given would still be caught); the
// pseudo-random bytes are made once per message and size, with ChaCha8 in
// one call: byte by byte, under the race detector, they cost seconds of CPU
// across the matrices.
func matrixPayload(i, size int) []byte {
	if size <= 64<<10 {
		b := make([]byte, size)
		for j := range b {
			b[j] = byte('a' + (j*7+i)%26)
		}
		copy(b, fmt.Sprintf("msg-%03d|", i))
		return b
	}
	return bytes.Clone(randomPayload(i, size))
}

// randomPayloads caches randomPayload's results.
var randomPayloads sync.Map // [2]int{i, size} -> []byte

// randomPayload returns the shared pseudo-random payload of message i: the
// caller must not modify it.
func randomPayload(i, size int) []byte {
	key := [2]int{i, size}
	if b, ok := randomPayloads.Load(key); ok {
		return b.([]byte)
	}
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[:], uint64(i))
	binary.LittleEndian.PutUint64(seed[8:], uint64(size))
	b := make([]byte, size)
	_, _ = rand.NewChaCha8(seed).Read(b)
	copy(b, fmt.Sprintf("msg-%03d|", i))
	got, _ := randomPayloads.LoadOrStore(key, b)
	return got.([]byte)
}

const matrixMessages = 12

// matrixChunkedSize is the payload of the chunked rows: under the stub's
// 64 KiB limit, three chunks (a first, a middle and a last, which the rows
// check from the ids), compressed or not (the bytes are pseudo-random). It
// was 300 KiB, five chunks, which go through the same paths for two more
// middle chunks: the chunked rows were nine tenths of the two matrices'
// time, most of it the official client's zlib under -race.
const matrixChunkedSize = 160 << 10

// hasMiddleChunk reports whether a chunked message's id spans three entries
// or more of one ledger (or two ledgers).
func hasMiddleChunk(first, last pulsar.MessageID) bool {
	return first.LedgerID() != last.LedgerID() || last.EntryID()-first.EntryID() >= 2
}

// TestCrossClientMatrix sends messages of every kind — plain, batched,
// chunked, each codec, batched and chunked — from this SDK to the official
// Go client and from the official client to this SDK, through one stub
// whose max message size (64 KiB) forces chunking, and checks every
// payload, key and property arrives intact and in order.
func TestCrossClientMatrix(t *testing.T) {
	// Independent of other tests (its own stub, or go commands): it runs
	// beside them, so the integration module uses both cores.
	t.Parallel()
	b := startStub(t, brokerstub.Options{MaxMessageSize: 64 << 10})
	theirs := officialClient(t, b.URL())
	ours, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL()})
	require.NoError(t, err)
	t.Cleanup(ours.Close)
	runMatrix(t, theirs, ours, newTopic)
}

// TestCrossClientMatrixOverTLSWithToken runs the matrix once as a secured
// cluster is used: the stub serves TLS and checks tokens and permissions,
// both clients connect over pulsar+ssl with the CA file and a token of
// token-principal, whose only grant is private/auth.
func TestCrossClientMatrixOverTLSWithToken(t *testing.T) {
	// Independent of other tests (its own stub, or go commands): it runs
	// beside them, so the integration module uses both cores.
	t.Parallel()
	pki := newSecPKI(t)
	secret := []byte("matrix over tls secret")
	tok, err := brokerstub.NewTokenProvider(brokerstub.TokenOptions{SecretKey: secret})
	require.NoError(t, err)
	b := secureStub(t, brokerstub.Options{MaxMessageSize: 64 << 10, TLS: pki.serverTLS(), TLSAddr: "127.0.0.1:0",
		AuthenticationProviders: []brokerstub.AuthenticationProvider{tok}}, "Bearer "+hs256Token(t, secret, "admin"))
	token := hs256Token(t, secret, "token-principal")
	theirs, err := official.NewClient(official.ClientOptions{URL: b.TLSURL(), TLSTrustCertsFilePath: pki.CAFile,
		TLSValidateHostname: true, Authentication: official.NewAuthenticationToken(token),
		OperationTimeout: 10 * time.Second, ConnectionTimeout: 5 * time.Second, Logger: quietLogger()})
	require.NoError(t, err)
	t.Cleanup(theirs.Close)
	ours, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.TLSURL(), TLSTrustCertsFilePath: pki.CAFile,
		TLSValidateHostname: true, Authentication: pulsar.NewAuthenticationToken(token)})
	require.NoError(t, err)
	t.Cleanup(ours.Close)

	runMatrix(t, theirs, ours, func(t *testing.T) string {
		return strings.Replace(newTopic(t), "public/default", "private/auth", 1)
	})

	// The same clients may not leave their grant.
	_, err = ours.CreateProducer(pulsar.ProducerOptions{Topic: newTopic(t)})
	var se *pulsar.ServerError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "AuthorizationError", se.Code)
	_, err = theirs.CreateProducer(official.ProducerOptions{Topic: newTopic(t)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "AuthorizationError")
}

// runMatrix runs every matrix case in both directions between theirs and
// ours, each on a topic of topic.
func runMatrix(t *testing.T, theirs official.Client, ours pulsar.Client, newTopic func(*testing.T) string) {
	t.Helper()
	for _, mc := range matrixCases() {
		t.Run("ours-to-official/"+mc.name, func(t *testing.T) {
			topic := newTopic(t)
			cons, err := theirs.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "m"})
			require.NoError(t, err)
			defer cons.Close()
			prod, err := ours.CreateProducer(pulsar.ProducerOptions{Topic: topic, CompressionType: mc.ours,
				DisableBatching: !mc.batched, EnableChunking: mc.chunked, BatchingMaxPublishDelay: 5 * time.Millisecond})
			require.NoError(t, err)
			defer prod.Close()
			errs := make(chan error, matrixMessages)
			for i := range matrixMessages {
				prod.SendAsync(ctxT(t), &pulsar.ProducerMessage{Payload: matrixPayload(i, mc.payloadSize),
					Key: fmt.Sprint("k", i%3), Properties: map[string]string{"i": fmt.Sprint(i)}},
					func(id pulsar.MessageID, _ *pulsar.ProducerMessage, err error) {
						if cid, isChunk := id.(pulsar.ChunkMessageID); err == nil && mc.chunked && !isChunk {
							err = fmt.Errorf("message %d was not chunked: id %s", i, id)
						} else if err == nil && mc.chunked && !hasMiddleChunk(cid.FirstChunkID(), cid.LastChunkID()) {
							err = fmt.Errorf("message %d has no middle chunk: id %s", i, id)
						}
						errs <- err
					})
			}
			for range matrixMessages {
				require.NoError(t, <-errs)
			}
			for i, m := range receiveN(t, cons, matrixMessages) {
				assert.True(t, bytes.Equal(matrixPayload(i, mc.payloadSize), m.Payload()), "message %d payload", i)
				assert.Equal(t, fmt.Sprint("k", i%3), m.Key())
				assert.Equal(t, fmt.Sprint(i), m.Properties()["i"])
				require.NoError(t, cons.Ack(m))
			}
		})
		t.Run("official-to-ours/"+mc.name, func(t *testing.T) {
			topic := newTopic(t)
			cons, err := ours.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "m"})
			require.NoError(t, err)
			defer cons.Close()
			prod, err := theirs.CreateProducer(official.ProducerOptions{Topic: topic, CompressionType: mc.theirs,
				DisableBatching: !mc.batched, EnableChunking: mc.chunked, BatchingMaxPublishDelay: 5 * time.Millisecond})
			require.NoError(t, err)
			defer prod.Close()
			errs := make(chan error, matrixMessages)
			for i := range matrixMessages {
				prod.SendAsync(ctxT(t), &official.ProducerMessage{Payload: matrixPayload(i, mc.payloadSize),
					Key: fmt.Sprint("k", i%3), Properties: map[string]string{"i": fmt.Sprint(i)}},
					func(_ official.MessageID, _ *official.ProducerMessage, err error) { errs <- err })
			}
			for range matrixMessages {
				require.NoError(t, <-errs)
			}
			for i := range matrixMessages {
				m, err := cons.Receive(ctxT(t))
				require.NoError(t, err, "message %d", i)
				assert.True(t, bytes.Equal(matrixPayload(i, mc.payloadSize), m.Payload()), "message %d payload", i)
				assert.Equal(t, fmt.Sprint("k", i%3), m.Key())
				assert.Equal(t, fmt.Sprint(i), m.Properties()["i"])
				if mc.chunked {
					cid, isChunk := m.ID().(pulsar.ChunkMessageID)
					if assert.True(t, isChunk, "message %d id %s", i, m.ID()) {
						assert.True(t, hasMiddleChunk(cid.FirstChunkID(), cid.LastChunkID()), "message %d has no middle chunk: id %s", i, m.ID())
					}
				}
				require.NoError(t, cons.Ack(m))
			}
		})
	}
}
