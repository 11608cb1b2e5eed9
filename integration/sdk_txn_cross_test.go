package integration

import (
	"bytes"
	"context"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar"
)

// txnClients starts a stub with its transaction coordinator on and both
// clients with transactions.
func txnClients(t *testing.T) (*brokerstub.Broker, pulsar.Client, official.Client) {
	t.Helper()
	b := startStub(t, brokerstub.Options{TransactionCoordinatorEnabled: true})
	ours, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL(), OperationTimeout: 10 * time.Second,
		Logger: sdkLogger(), EnableTransaction: true})
	require.NoError(t, err)
	t.Cleanup(ours.Close)
	theirs, err := official.NewClient(official.ClientOptions{URL: b.URL(), OperationTimeout: 10 * time.Second,
		ConnectionTimeout: 5 * time.Second, Logger: quietLogger(), EnableTransaction: true})
	require.NoError(t, err)
	t.Cleanup(theirs.Close)
	return b, ours, theirs
}

func sdkNothing(t *testing.T, c pulsar.Consumer, wait time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if m, err := c.Receive(ctx); err == nil {
		t.Fatalf("unexpected message %v: %q", m.ID(), m.Payload())
	}
}

// pulsargo produces in a transaction; the official consumer sees the
// messages only after commit, and never those of an aborted one.
func TestTxnCrossPulsargoProducesOfficialConsumes(t *testing.T) {
	// Mostly waiting (timeouts that must pass, rates, quiet periods), on a
	// broker and clients of its own: it waits beside the other tests.
	t.Parallel()
	_, ours, theirs := txnClients(t)
	topic := newTopic(t)
	cons, err := theirs.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s",
		SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
	require.NoError(t, err)
	t.Cleanup(cons.Close)
	p, err := ours.CreateProducer(pulsar.ProducerOptions{Topic: topic})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	ctx := ctxT(t)

	tx, err := ours.NewTransaction(time.Minute)
	require.NoError(t, err)
	for _, s := range []string{"c1", "c2"} {
		_, err := p.Send(ctx, &pulsar.ProducerMessage{Payload: []byte(s), Transaction: tx})
		require.NoError(t, err)
	}
	expectNothing(t, cons, time.Second)
	require.NoError(t, tx.Commit(ctx))
	require.Equal(t, []string{"c1", "c2"}, payloads(receiveN(t, cons, 2)))

	tx, err = ours.NewTransaction(time.Minute)
	require.NoError(t, err)
	_, err = p.Send(ctx, &pulsar.ProducerMessage{Payload: []byte("aborted"), Transaction: tx})
	require.NoError(t, err)
	require.NoError(t, tx.Abort(ctx))
	_, err = p.Send(ctx, &pulsar.ProducerMessage{Payload: []byte("plain")})
	require.NoError(t, err)
	require.Equal(t, []string{"plain"}, payloads(receiveN(t, cons, 1)))
	expectNothing(t, cons, time.Second)
}

// The official client produces in a transaction; pulsargo's consumer sees
// the messages only after commit, and never those of an aborted one.
func TestTxnCrossOfficialProducesPulsargoConsumes(t *testing.T) {
	// Mostly waiting (timeouts that must pass, rates, quiet periods), on a
	// broker and clients of its own: it waits beside the other tests.
	t.Parallel()
	_, ours, theirs := txnClients(t)
	topic := newTopic(t)
	cons := sdkSubscribe(t, ours, pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	p, err := theirs.CreateProducer(official.ProducerOptions{Topic: topic})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	ctx := ctxT(t)

	tx, err := theirs.NewTransaction(time.Minute)
	require.NoError(t, err)
	for _, s := range []string{"c1", "c2"} {
		_, err := p.Send(ctx, &official.ProducerMessage{Payload: []byte(s), Transaction: tx})
		require.NoError(t, err)
	}
	sdkNothing(t, cons, time.Second)
	require.NoError(t, tx.Commit(ctx))
	require.Equal(t, []string{"c1", "c2"}, sdkPayloads(sdkReceiveN(t, cons, 2)))

	tx, err = theirs.NewTransaction(time.Minute)
	require.NoError(t, err)
	_, err = p.Send(ctx, &official.ProducerMessage{Payload: []byte("aborted"), Transaction: tx})
	require.NoError(t, err)
	require.NoError(t, tx.Abort(ctx))
	// A producer of its own for the message outside a transaction: the
	// official producer's batch keeps the txn id of the last transaction
	// in its SEND (v0.19.0 never clears it), so its next batch would be
	// refused with TransactionNotFound.
	plain, err := theirs.CreateProducer(official.ProducerOptions{Topic: topic})
	require.NoError(t, err)
	t.Cleanup(plain.Close)
	_, err = plain.Send(ctx, &official.ProducerMessage{Payload: []byte("plain")})
	require.NoError(t, err)
	require.Equal(t, []string{"plain"}, sdkPayloads(sdkReceiveN(t, cons, 1)))
	sdkNothing(t, cons, time.Second)
}

// Acks in a transaction, both ways: one client's consumer acks in a
// transaction that aborts, so the other client's consumer on the same
// subscription gets the messages again; it acks them in a committed
// transaction of its own, and the first client's consumer gets nothing.
func TestTxnCrossAcks(t *testing.T) {
	// Mostly waiting (timeouts that must pass, rates, quiet periods), on a
	// broker and clients of its own: it waits beside the other tests.
	t.Parallel()
	t.Run("pulsargo-aborts-official-commits", func(t *testing.T) {
		b, ours, theirs := txnClients(t)
		topic := newTopic(t)
		sendPlain(t, ours, topic, "a1", "a2")
		ctx := ctxT(t)

		sc := sdkSubscribe(t, ours, pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
		ms := sdkReceiveN(t, sc, 2)
		tx, err := ours.NewTransaction(time.Minute)
		require.NoError(t, err)
		for _, m := range ms {
			require.NoError(t, sc.AckWithTxn(m, tx))
		}
		require.NoError(t, tx.Abort(ctx))
		sc.Close()

		oc, err := theirs.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
		require.NoError(t, err)
		oms := receiveN(t, oc, 2)
		require.Equal(t, []string{"a1", "a2"}, payloads(oms))
		otx, err := theirs.NewTransaction(time.Minute)
		require.NoError(t, err)
		for _, m := range oms {
			require.NoError(t, oc.AckWithTxn(m, otx))
		}
		require.NoError(t, otx.Commit(ctx))
		oc.Close()
		waitAcked(t, b, topic, "s", ms[1].ID())

		sc = sdkSubscribe(t, ours, pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
		sdkNothing(t, sc, time.Second)
	})
	t.Run("official-aborts-pulsargo-commits", func(t *testing.T) {
		b, ours, theirs := txnClients(t)
		topic := newTopic(t)
		sendPlain(t, ours, topic, "b1", "b2")
		ctx := ctxT(t)

		oc, err := theirs.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s",
			SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
		require.NoError(t, err)
		oms := receiveN(t, oc, 2)
		otx, err := theirs.NewTransaction(time.Minute)
		require.NoError(t, err)
		for _, m := range oms {
			require.NoError(t, oc.AckWithTxn(m, otx))
		}
		require.NoError(t, otx.Abort(ctx))
		oc.Close()

		sc := sdkSubscribe(t, ours, pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
		ms := sdkReceiveN(t, sc, 2)
		require.Equal(t, []string{"b1", "b2"}, sdkPayloads(ms))
		tx, err := ours.NewTransaction(time.Minute)
		require.NoError(t, err)
		for _, m := range ms {
			require.NoError(t, sc.AckWithTxn(m, tx))
		}
		require.NoError(t, tx.Commit(ctx))
		sc.Close()
		waitAcked(t, b, topic, "s", ms[1].ID())

		oc, err = theirs.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
		require.NoError(t, err)
		t.Cleanup(oc.Close)
		expectNothing(t, oc, time.Second)
	})
}

// sendPlain sends payloads without a transaction.
func sendPlain(t *testing.T, c pulsar.Client, topic string, payloads ...string) {
	t.Helper()
	p, err := c.CreateProducer(pulsar.ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	defer p.Close()
	for _, s := range payloads {
		_, err := p.Send(ctxT(t), &pulsar.ProducerMessage{Payload: []byte(s)})
		require.NoError(t, err)
	}
}

// A chunked message that pulsargo produces in a transaction reaches the
// official consumer whole, and only after commit.
func TestTxnCrossChunkedPulsargoToOfficial(t *testing.T) {
	// Mostly waiting (timeouts that must pass, rates, quiet periods), on a
	// broker and clients of its own: it waits beside the other tests.
	t.Parallel()
	_, ours, theirs := txnClients(t)
	topic := newTopic(t)
	cons, err := theirs.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s",
		SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
	require.NoError(t, err)
	t.Cleanup(cons.Close)
	p, err := ours.CreateProducer(pulsar.ProducerOptions{Topic: topic, DisableBatching: true,
		EnableChunking: true, ChunkMaxMessageSize: 4096})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	ctx := ctxT(t)
	big := bytes.Repeat([]byte("chunk-in-txn;"), 3000) // ~39 kB: 10 chunks
	tx, err := ours.NewTransaction(time.Minute)
	require.NoError(t, err)
	_, err = p.Send(ctx, &pulsar.ProducerMessage{Payload: big, Transaction: tx})
	require.NoError(t, err)
	expectNothing(t, cons, time.Second)
	require.NoError(t, tx.Commit(ctx))
	m := receiveN(t, cons, 1)[0]
	require.True(t, bytes.Equal(big, m.Payload()), "payload of %d bytes differs", len(m.Payload()))
}
