package pulsar

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/messageid"
)

// txnEnv is a stub with its transaction coordinator on and a client with
// transactions, on in-memory connections (so tests run in synctest
// bubbles).
func newTxnEnv(t *testing.T, opts ...brokerstub.Options) *csEnv {
	t.Helper()
	var o brokerstub.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	o.TransactionCoordinatorEnabled = true
	if o.Logger == nil {
		o.Logger = csLogger()
	}
	o.NoListener = true
	b := brokerstub.RunT(t, o)
	c, err := NewClient(ClientOptions{URL: b.URL(), Dialer: b.Dial, OperationTimeout: 5 * time.Second,
		Logger: clientLogger(), EnableTransaction: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &csEnv{t: t, b: b, c: c}
}

// newTxn opens a transaction or fails the test.
func (v *csEnv) newTxn(timeout time.Duration) Transaction {
	v.t.Helper()
	tx, err := v.c.NewTransaction(timeout)
	if err != nil {
		v.t.Fatalf("new transaction: %v", err)
	}
	if tx.GetState() != TxnOpen {
		v.t.Fatalf("new transaction in state %v", tx.GetState())
	}
	return tx
}

// wantResult checks that err is, or wraps, an *Error with Result r.
func wantResult(t *testing.T, err error, r Result) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Result() != r {
		t.Fatalf("error %v: want an *Error with Result %v", err, r)
	}
}

// sendTxn sends payload in tx (nil: none) and fails the test on error.
func sendTxn(t *testing.T, p Producer, tx Transaction, payload string) MessageID {
	t.Helper()
	id, err := p.Send(context.Background(), &ProducerMessage{Payload: []byte(payload), Transaction: tx})
	if err != nil {
		t.Fatalf("send %q: %v", payload, err)
	}
	return id
}

// ackedThrough is a cursor with everything through last acknowledged and
// nothing else pending; the mark-delete position may be past last (over
// the commit marker that follows it).
func ackedThrough(last MessageID) func(brokerstub.CursorState) bool {
	l := messageid.LastChunk(last)
	at := brokerstub.Position{Ledger: l.LedgerID(), Entry: l.EntryID()}
	return func(c brokerstub.CursorState) bool {
		md := c.MarkDelete
		return (md.Ledger > at.Ledger || md.Ledger == at.Ledger && md.Entry >= at.Entry) &&
			len(c.Ranges) == 0 && len(c.BatchAcks) == 0
	}
}
