package integration

import (
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
)

// TestOfficialTxnPendingAckNotRedelivered: a message the official client
// acknowledged in a transaction still open is not handed to another
// consumer when the one that held it closes (Pulsar's dispatcher passes
// over the subscription's pending acks); the abort delivers it again.
func TestOfficialTxnPendingAckNotRedelivered(t *testing.T) {
	b := txnStub(t, brokerstub.Options{})
	c := txnClient(t, b.URL())
	topic := newTopic(t)
	opts := official.ConsumerOptions{Topic: topic, SubscriptionName: "s", Type: official.Shared}
	a, err := c.Subscribe(opts)
	require.NoError(t, err)
	prod, err := c.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	defer prod.Close()
	send(t, prod, "m0", nil)
	send(t, prod, "m1", nil)
	msgs := receiveN(t, a, 2)

	txn, err := c.NewTransaction(time.Minute)
	require.NoError(t, err)
	require.NoError(t, a.AckWithTxn(msgs[0], txn))
	bc, err := c.Subscribe(opts)
	require.NoError(t, err)
	defer bc.Close()
	a.Close()
	send(t, prod, "fence", nil)
	assert.Equal(t, []string{"m1", "fence"}, payloads(receiveN(t, bc, 2)),
		"m0 is pending in the open transaction: not redelivered (it would come before the fence)")

	require.NoError(t, txn.Abort(ctxT(t)))
	assert.Equal(t, []string{"m0"}, payloads(receiveN(t, bc, 1)), "the abort delivers it again")
}
