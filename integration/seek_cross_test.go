package integration

import (
	"bytes"
	"context"
	"testing"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar"
)

// seekProgram is the API a seek program needs, so that the same program
// runs with the official client and with this SDK.
type seekProgram[ID any] struct {
	send    func(ctx context.Context, payload []byte) (ID, error)
	receive func(ctx context.Context) ([]byte, error) // and acknowledge
	seek    func(ID) error
}

// runSeekProgram sends three chunked messages, receives them, seeks with
// the id Send returned for the second and returns what is received next.
func runSeekProgram[ID any](t *testing.T, p seekProgram[ID], payloads [3][]byte) []byte {
	t.Helper()
	var ids [3]ID
	for i, pl := range payloads {
		id, err := p.send(ctxT(t), pl)
		require.NoError(t, err, "send %d", i)
		ids[i] = id
	}
	for i := range payloads {
		got, err := p.receive(ctxT(t))
		require.NoError(t, err, "receive %d", i)
		require.True(t, bytes.Equal(got, payloads[i]), "message %d differs before the seek", i)
	}
	require.NoError(t, p.seek(ids[1]))
	got, err := p.receive(ctxT(t))
	require.NoError(t, err, "receive after the seek")
	return got
}

// TestSeekCross: the same program — three chunked messages, Seek to the
// id Send returned for the second, Receive, with StartMessageIDInclusive
// left at its default — gets the second message with the official client
// and with this SDK, against the same stub.
func TestSeekCross(t *testing.T) {
	b := startStub(t, brokerstub.Options{MaxMessageSize: 64 << 10})
	var payloads [3][]byte
	for i := range payloads {
		payloads[i] = randomBytes(t, 200<<10) // four chunks each
	}
	// Topics of one partition: the official client refuses to seek with an
	// id of its producer on a topic without partitions (partition -1).
	topic := func() string {
		name := newTopic(t)
		require.NoError(t, b.CreatePartitionedTopic(name, 1))
		return name
	}

	t.Run("official", func(t *testing.T) {
		client := officialClient(t, b.URL())
		name := topic()
		cons, err := client.Subscribe(official.ConsumerOptions{Topic: name, SubscriptionName: "s",
			SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
		require.NoError(t, err)
		defer cons.Close()
		prod := chunkedProducer(t, client, name)
		got := runSeekProgram(t, seekProgram[official.MessageID]{
			send: func(ctx context.Context, pl []byte) (official.MessageID, error) {
				return prod.Send(ctx, &official.ProducerMessage{Payload: pl})
			},
			receive: func(ctx context.Context) ([]byte, error) {
				m, err := cons.Receive(ctx)
				if err != nil {
					return nil, err
				}
				return m.Payload(), cons.Ack(m)
			},
			seek: cons.Seek,
		}, payloads)
		require.True(t, bytes.Equal(got, payloads[1]), "the official client got another message than the second (%d bytes)", len(got))
	})

	t.Run("pulsargo", func(t *testing.T) {
		client := sdkClient(t, b.URL())
		name := topic()
		cons, err := client.Subscribe(pulsar.ConsumerOptions{Topic: name, SubscriptionName: "s",
			SubscriptionInitialPosition: pulsar.SubscriptionPositionEarliest})
		require.NoError(t, err)
		defer cons.Close()
		prod, err := client.CreateProducer(pulsar.ProducerOptions{Topic: name, EnableChunking: true, DisableBatching: true})
		require.NoError(t, err)
		defer prod.Close()
		got := runSeekProgram(t, seekProgram[pulsar.MessageID]{
			send: func(ctx context.Context, pl []byte) (pulsar.MessageID, error) {
				return prod.Send(ctx, &pulsar.ProducerMessage{Payload: pl})
			},
			receive: func(ctx context.Context) ([]byte, error) {
				m, err := cons.Receive(ctx)
				if err != nil {
					return nil, err
				}
				return m.Payload(), cons.Ack(m)
			},
			seek: cons.Seek,
		}, payloads)
		require.True(t, bytes.Equal(got, payloads[1]), "pulsargo got another message than the second (%d bytes)", len(got))
	})
}
