package pulsar

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestTxnNotEnabledOnClient(t *testing.T) {
	v := newCSEnv(t)
	tx, err := v.c.NewTransaction(time.Minute)
	if tx != nil || !errors.Is(err, ErrClientTransactionsNotEnabled) {
		t.Fatalf("got %v, %v", tx, err)
	}
}

func TestTxnNotEnabledOnBroker(t *testing.T) {
	v := newCSEnv(t) // the stub's coordinator is off
	c, err := NewClient(ClientOptions{URL: v.b.URL(), Dialer: v.b.Dial, OperationTimeout: 5 * time.Second,
		Logger: clientLogger(), EnableTransaction: true})
	if err == nil {
		c.Close()
		t.Fatal("NewClient with EnableTransaction succeeded against a broker without a coordinator")
	}
	// Without a coordinator the assign topic has no partitions.
	if !errors.Is(err, ErrTransactionCoordinatorNotEnabled) {
		t.Fatalf("got %v, want ErrTransactionCoordinatorNotEnabled", err)
	}
	wantResult(t, err, TransactionCoordinatorNotEnabled)
}

// Messages of an open transaction are not dispatched, nor is anything
// after its first message (the broker's max-read position, as Pulsar's):
// commit makes them visible in order.
func TestTxnProduceVisibleOnlyAfterCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newTxnEnv(t)
		topic := csTopic()
		cons := v.subscribe(ConsumerOptions{Topic: topic})
		p := testProducer(t, v.c, ProducerOptions{Topic: topic})
		sendTxn(t, p, nil, "before")
		tx := v.newTxn(time.Hour)
		for _, s := range []string{"t1", "t2", "t3"} {
			sendTxn(t, p, tx, s)
		}
		sendTxn(t, p, nil, "after")
		if got := csNames(csRecvN(t, cons, 1)); !slices.Equal(got, []string{"before"}) {
			t.Fatalf("before commit got %v", got)
		}
		csNone(t, cons, time.Second)
		if err := tx.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
		if tx.GetState() != TxnCommitted {
			t.Fatal(tx.GetState())
		}
		if got := csNames(csRecvN(t, cons, 4)); !slices.Equal(got, []string{"t1", "t2", "t3", "after"}) {
			t.Fatalf("after commit got %v", got)
		}
	})
}

func TestTxnAbortedNeverVisible(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newTxnEnv(t)
		topic := csTopic()
		cons := v.subscribe(ConsumerOptions{Topic: topic})
		p := testProducer(t, v.c, ProducerOptions{Topic: topic, DisableBatching: true})
		tx := v.newTxn(time.Hour)
		sendTxn(t, p, tx, "aborted-1")
		sendTxn(t, p, tx, "aborted-2")
		if err := tx.Abort(context.Background()); err != nil {
			t.Fatal(err)
		}
		if tx.GetState() != TxnAborted {
			t.Fatal(tx.GetState())
		}
		sendTxn(t, p, nil, "after")
		if got := csNames(csRecvN(t, cons, 1)); !slices.Equal(got, []string{"after"}) {
			t.Fatalf("got %v", got)
		}
		csNone(t, cons, time.Second)
	})
}

// TestTxnCommitWaitsForSends commits right after SendAsync, while the
// messages still sit in the producer's batch: Commit must wait for their
// receipts (the official client's op count), else END_TXN would overtake
// them and they would be sent in a committed transaction.
func TestTxnCommitWaitsForSends(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newTxnEnv(t)
		topic := csTopic()
		cons := v.subscribe(ConsumerOptions{Topic: topic})
		p := testProducer(t, v.c, ProducerOptions{Topic: topic, BatchingMaxPublishDelay: 500 * time.Millisecond})
		tx := v.newTxn(time.Hour)
		var wg sync.WaitGroup
		errs := make([]error, 5)
		for i := range errs {
			wg.Add(1)
			p.SendAsync(context.Background(), &ProducerMessage{Payload: []byte{'a' + byte(i)}, Transaction: tx},
				func(_ MessageID, _ *ProducerMessage, err error) { errs[i] = err; wg.Done() })
		}
		if err := tx.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		if got := csNames(csRecvN(t, cons, 5)); !slices.Equal(got, []string{"a", "b", "c", "d", "e"}) {
			t.Fatalf("got %v", got)
		}
	})
}

func TestTxnAckWithTxn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newTxnEnv(t)
		topic := csTopic()
		p := testProducer(t, v.c, ProducerOptions{Topic: topic, DisableBatching: true})
		for _, s := range []string{"m1", "m2"} {
			sendTxn(t, p, nil, s)
		}
		cons := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "s"})
		ms := csRecvN(t, cons, 2)

		// Acks in an aborted transaction take no effect: the messages
		// come back to a new consumer.
		tx := v.newTxn(time.Hour)
		for _, m := range ms {
			if err := cons.AckWithTxn(m, tx); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Abort(context.Background()); err != nil {
			t.Fatal(err)
		}
		cons.Close()
		cons = v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "s"})
		ms = csRecvN(t, cons, 2)
		if got := csNames(ms); !slices.Equal(got, []string{"m1", "m2"}) {
			t.Fatalf("after abort got %v", got)
		}

		// Committed: the subscription's cursor moves past them.
		tx = v.newTxn(time.Hour)
		for _, m := range ms {
			if err := cons.AckWithTxn(m, tx); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", ackedThrough(ms[1].ID()))
		cons.Close()
		cons = v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "s"})
		csNone(t, cons, time.Second)
	})
}

func TestTxnTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newTxnEnv(t)
		topic := csTopic()
		cons := v.subscribe(ConsumerOptions{Topic: topic})
		p := testProducer(t, v.c, ProducerOptions{Topic: topic, DisableBatching: true})
		tx := v.newTxn(2 * time.Second)
		sendTxn(t, p, tx, "timed-out")
		time.Sleep(3 * time.Second) // the bubble's clock: the transaction's timeout passes
		if tx.GetState() != TxnTimeout {
			t.Fatal(tx.GetState())
		}
		_, err := p.Send(context.Background(), &ProducerMessage{Payload: []byte("late"), Transaction: tx})
		if !errors.Is(err, ErrTransaction) {
			t.Fatalf("send in a timed-out transaction: %v", err)
		}
		wantResult(t, tx.Commit(context.Background()), InvalidStatus)
		wantResult(t, tx.Abort(context.Background()), InvalidStatus)
		// The broker aborted it: its message never shows.
		sendTxn(t, p, nil, "after")
		if got := csNames(csRecvN(t, cons, 1)); !slices.Equal(got, []string{"after"}) {
			t.Fatalf("got %v", got)
		}
		csNone(t, cons, time.Second)
	})
}

func TestTxnStateErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newTxnEnv(t)
		topic := csTopic()
		p := testProducer(t, v.c, ProducerOptions{Topic: topic})
		sendTxn(t, p, nil, "m")
		cons := v.subscribe(ConsumerOptions{Topic: topic})
		m := csRecv(t, cons)
		tx := v.newTxn(time.Hour)
		if err := tx.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
		err := tx.Commit(context.Background())
		wantResult(t, err, InvalidStatus)
		if err.Error() != "Expected transaction state: TxnOpen, actual: TxnCommitted: Result(40)" {
			t.Fatalf("text %q", err)
		}
		wantResult(t, tx.Abort(context.Background()), InvalidStatus)
		_, err = p.Send(context.Background(), &ProducerMessage{Payload: []byte("x"), Transaction: tx})
		if !errors.Is(err, ErrTransaction) {
			t.Fatalf("send in a committed transaction: %v", err)
		}
		var done error
		wg := make(chan struct{})
		p.SendAsync(context.Background(), &ProducerMessage{Payload: []byte("x"), Transaction: tx},
			func(_ MessageID, _ *ProducerMessage, err error) { done = err; close(wg) })
		<-wg
		if !errors.Is(done, ErrTransaction) {
			t.Fatalf("SendAsync in a committed transaction: %v", done)
		}
		err = cons.AckWithTxn(m, tx)
		wantResult(t, err, InvalidStatus)
		if !strings.HasPrefix(err.Error(), "Failed to ack by a non-open transaction.") {
			t.Fatalf("text %q", err)
		}
	})
}

func TestTxnChunked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newTxnEnv(t)
		topic := csTopic()
		cons := v.subscribe(ConsumerOptions{Topic: topic})
		p := testProducer(t, v.c, ProducerOptions{Topic: topic, DisableBatching: true, EnableChunking: true, ChunkMaxMessageSize: 1000})
		big := csNoise(10_000, 7)
		tx := v.newTxn(time.Hour)
		id, err := p.Send(context.Background(), &ProducerMessage{Payload: big, Transaction: tx})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := id.(ChunkMessageID); !ok {
			t.Fatalf("id %T is not a chunk id", id)
		}
		csNone(t, cons, time.Second)
		if err := tx.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
		m := csRecv(t, cons)
		csSame(t, m.Payload(), big)

		// Acked in a transaction: every chunk, on commit.
		tx = v.newTxn(time.Hour)
		if err := cons.AckWithTxn(m, tx); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", ackedThrough(m.ID()))
	})
}

// TestTxnAcrossBrokerRestart: the restart closes every connection; the
// producer and the coordinator client reconnect (TC_CLIENT_CONNECT again)
// and the transaction, kept by the broker, commits with both messages.
func TestTxnAcrossBrokerRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newTxnEnv(t)
		topic := csTopic()
		p := testProducer(t, v.c, ProducerOptions{Topic: topic, DisableBatching: true})
		tx := v.newTxn(time.Hour)
		sendTxn(t, p, tx, "before-restart")
		if err := v.b.Restart(); err != nil {
			t.Fatal(err)
		}
		sendTxn(t, p, tx, "after-restart")
		if err := tx.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
		cons := v.subscribe(ConsumerOptions{Topic: topic})
		if got := csNames(csRecvN(t, cons, 2)); !slices.Equal(got, []string{"before-restart", "after-restart"}) {
			t.Fatalf("got %v", got)
		}
	})
}
