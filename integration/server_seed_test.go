package integration

import (
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServerSeedPartialBatchAckAfterKill9 is the seed scenario of the
// cursor issue end to end, with the official Go client and batch-index acks
// against cmd/brokerstub with a data dir: E0, a batch E1 = [A, B], E2; E0
// acknowledged; then only A; the flush interval passes (no other ack, no
// close); the server is killed with SIGKILL and restarted; a consumer of the
// subscription receives B and not A (upstream Pulsar redelivers A: the
// partial-batch bitmap change never marks its cursor dirty).
func TestServerSeedPartialBatchAckAfterKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the brokerstub binary")
	}
	bin := buildServer(t)
	dataDir := t.TempDir()
	args := func(addr string) []string {
		return []string{"-addr", addr, "-data-dir", dataDir, "-cursor-flush-interval", "200ms"}
	}
	srv := startServer(t, bin, args("127.0.0.1:0")...)
	topic := newTopic(t)
	client := officialClient(t, srv.url)
	consOpts := official.ConsumerOptions{Topic: topic, SubscriptionName: "s",
		SubscriptionInitialPosition:    official.SubscriptionPositionEarliest,
		EnableBatchIndexAcknowledgment: true, AckWithResponse: true}
	cons, err := client.Subscribe(consOpts)
	require.NoError(t, err)

	single, err := client.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	batching, err := client.CreateProducer(official.ProducerOptions{Topic: topic,
		BatchingMaxMessages: 10, BatchingMaxPublishDelay: 100 * time.Millisecond})
	require.NoError(t, err)
	_, err = single.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("E0")})
	require.NoError(t, err)
	done := make(chan error, 2)
	for _, p := range []string{"A", "B"} {
		batching.SendAsync(ctxT(t), &official.ProducerMessage{Payload: []byte(p)},
			func(_ official.MessageID, _ *official.ProducerMessage, err error) { done <- err })
	}
	require.NoError(t, <-done)
	require.NoError(t, <-done)
	_, err = single.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("E2")})
	require.NoError(t, err)

	msgs := receiveN(t, cons, 4)
	require.Equal(t, []string{"E0", "A", "B", "E2"}, payloads(msgs))
	require.Equal(t, msgs[1].ID().EntryID(), msgs[2].ID().EntryID(), "A and B share one batch entry")
	require.NoError(t, cons.Ack(msgs[0]))
	require.NoError(t, cons.Ack(msgs[1])) // A only
	time.Sleep(time.Second)               // > flush interval, nothing else happens

	// Close the clients while the server is up (the official client's Close
	// waits out its operation timeout against a dead broker), then kill it:
	// closing a consumer does not flush the cursor.
	cons.Close()
	single.Close()
	batching.Close()
	client.Close()
	srv.kill()
	srv = startServer(t, bin, args(srv.addr())...)
	client2 := officialClient(t, srv.url)
	cons2, err := client2.Subscribe(consOpts)
	require.NoError(t, err)
	defer cons2.Close()
	got := payloads(receiveN(t, cons2, 2))
	assert.Equal(t, []string{"B", "E2"}, got, "after kill -9: B and E2, not E0 or A")
}
