package integration

import (
	"fmt"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
)

// Transactions (PIP-31) between the official Go client and the stub.

// txnClient connects the official client with transactions enabled.
func txnClient(t *testing.T, url string) official.Client {
	t.Helper()
	c, err := official.NewClient(official.ClientOptions{
		URL: url, EnableTransaction: true, OperationTimeout: 10 * time.Second,
		ConnectionTimeout: 5 * time.Second, Logger: quietLogger(),
	})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

func txnStub(t *testing.T, o brokerstub.Options) *brokerstub.Broker {
	o.TransactionCoordinatorEnabled = true
	return startStub(t, o)
}

// send publishes payload, in txn when not nil.
func send(t *testing.T, p official.Producer, payload string, txn official.Transaction) official.MessageID {
	t.Helper()
	id, err := p.Send(ctxT(t), &official.ProducerMessage{Payload: []byte(payload), Transaction: txn})
	require.NoError(t, err)
	return id
}

// readerHasNext reports what a reader from the earliest message is told is
// there to read (GET_LAST_MESSAGE_ID).
func readerHasNext(t *testing.T, c official.Client, topic string) bool {
	t.Helper()
	r, err := c.CreateReader(official.ReaderOptions{Topic: topic, StartMessageID: official.EarliestMessageID()})
	require.NoError(t, err)
	defer r.Close()
	return r.HasNext()
}

func TestOfficialTxnProduceVisibleOnlyAfterCommit(t *testing.T) {
	b := txnStub(t, brokerstub.Options{})
	c := txnClient(t, b.URL())
	topic := newTopic(t)
	cons, err := c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	require.NoError(t, err)
	defer cons.Close()
	prod, err := c.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true, SendTimeout: 0})
	require.NoError(t, err)
	defer prod.Close()

	txn, err := c.NewTransaction(time.Minute)
	require.NoError(t, err)
	for i := range 3 {
		send(t, prod, fmt.Sprintf("t%d", i), txn)
	}
	assert.False(t, readerHasNext(t, c, topic), "the broker reveals no uncommitted message")
	expectNothing(t, cons, 200*time.Millisecond)
	require.NoError(t, txn.Commit(ctxT(t)))
	assert.Equal(t, official.TxnCommitted, txn.GetState())
	assert.Equal(t, []string{"t0", "t1", "t2"}, payloads(receiveN(t, cons, 3)))
	assert.True(t, readerHasNext(t, c, topic))
}

func TestOfficialTxnAbortNeverDelivered(t *testing.T) {
	b := txnStub(t, brokerstub.Options{})
	c := txnClient(t, b.URL())
	topic := newTopic(t)
	var consumers []official.Consumer
	for _, typ := range []official.SubscriptionType{official.Exclusive, official.Shared, official.KeyShared} {
		cons, err := c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: fmt.Sprint("s", typ), Type: typ})
		require.NoError(t, err)
		defer cons.Close()
		consumers = append(consumers, cons)
	}
	// Batched inside the transaction. The plain message goes through another
	// producer: the official client's batch builder keeps the transaction id
	// of the last batch on the next one (v0.19), so a plain message after a
	// transactional batch on one producer is sent inside the ended
	// transaction and refused.
	prod, err := c.CreateProducer(official.ProducerOptions{Topic: topic, BatchingMaxPublishDelay: time.Millisecond})
	require.NoError(t, err)
	defer prod.Close()
	plain, err := c.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	defer plain.Close()

	txn, err := c.NewTransaction(time.Minute)
	require.NoError(t, err)
	send(t, prod, "aborted", txn)
	require.NoError(t, txn.Abort(ctxT(t)))
	send(t, plain, "plain", nil)
	// In order: the first message after the aborted one is the plain one.
	for _, cons := range consumers {
		assert.Equal(t, []string{"plain"}, payloads(receiveN(t, cons, 1)))
	}
	r, err := c.CreateReader(official.ReaderOptions{Topic: topic, StartMessageID: official.EarliestMessageID()})
	require.NoError(t, err)
	defer r.Close()
	m, err := r.Next(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, "plain", string(m.Payload()))
	assert.False(t, r.HasNext())
}

func TestOfficialTxnAcks(t *testing.T) {
	b := txnStub(t, brokerstub.Options{})
	c := txnClient(t, b.URL())
	topic := newTopic(t)
	cons, err := c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s", Type: official.Shared})
	require.NoError(t, err)
	prod, err := c.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	defer prod.Close()
	send(t, prod, "a", nil)
	send(t, prod, "b", nil)
	msgs := receiveN(t, cons, 2)

	// Acked in a transaction that aborts: delivered again.
	aborted, err := c.NewTransaction(time.Minute)
	require.NoError(t, err)
	require.NoError(t, cons.AckWithTxn(msgs[0], aborted))
	// Another transaction may not ack the same message meanwhile.
	other, err := c.NewTransaction(time.Minute)
	require.NoError(t, err)
	assert.Error(t, cons.AckWithTxn(msgs[0], other), "conflict")
	require.NoError(t, aborted.Abort(ctxT(t)))
	again := receiveN(t, cons, 1)
	assert.Equal(t, "a", string(again[0].Payload()))

	// Acked in a transaction that commits: gone for good.
	txn, err := c.NewTransaction(time.Minute)
	require.NoError(t, err)
	require.NoError(t, cons.AckWithTxn(again[0], txn))
	require.NoError(t, cons.AckWithTxn(msgs[1], txn))
	require.NoError(t, txn.Commit(ctxT(t)))
	cons.Close()
	cur, _, err := b.Cursor(topic, "s")
	require.NoError(t, err)
	assert.Empty(t, cur.Ranges)
	cons, err = c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s", Type: official.Shared})
	require.NoError(t, err)
	defer cons.Close()
	send(t, prod, "fence", nil)
	assert.Equal(t, []string{"fence"}, payloads(receiveN(t, cons, 1)), "nothing acknowledged in the committed transaction comes back")
}

// TestOfficialTxnCrash: a Crash keeps what was committed, and an open
// transaction stays hidden after it until its timeout (on the stub's
// clock) aborts it.
func TestOfficialTxnCrash(t *testing.T) {
	clk := brokerstub.NewFakeClock(time.Now())
	b := txnStub(t, brokerstub.Options{DataDir: t.TempDir(), Clock: clk})
	c := txnClient(t, b.URL())
	topic := newTopic(t)
	prod, err := c.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	defer prod.Close()
	committed, err := c.NewTransaction(time.Minute)
	require.NoError(t, err)
	send(t, prod, "committed", committed)
	require.NoError(t, committed.Commit(ctxT(t)))
	open, err := c.NewTransaction(10 * time.Second)
	require.NoError(t, err)
	send(t, prod, "open", open)
	send(t, prod, "plain", nil)

	require.NoError(t, b.Crash())
	cons, err := c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s",
		SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
	require.NoError(t, err)
	defer cons.Close()
	assert.Equal(t, []string{"committed"}, payloads(receiveN(t, cons, 1)))
	expectNothing(t, cons, 200*time.Millisecond)
	clk.Advance(10 * time.Second) // the open transaction times out and aborts
	assert.Equal(t, []string{"plain"}, payloads(receiveN(t, cons, 1)))
	assert.Error(t, open.Commit(ctxT(t)), "a timed-out transaction cannot commit")
}

func TestOfficialTxnDisabled(t *testing.T) {
	b := startStub(t)
	_, err := official.NewClient(official.ClientOptions{URL: b.URL(), EnableTransaction: true, Logger: quietLogger()})
	require.ErrorIs(t, err, official.ErrTransactionCoordinatorNotEnabled)
}
