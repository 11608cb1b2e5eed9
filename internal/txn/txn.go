package txn

import (
	"context"
	"sync"
	"time"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/proto"
)

// Txn is one transaction (pulsar.Transaction wraps it), and the registration of its
// partitions, subscriptions and in-flight operations for the producers and
// consumers that use it. It is safe for concurrent use.
type Txn struct {
	id api.TxnID
	co *Coordinator

	mu        sync.Mutex
	state     api.TxnState
	ending    bool          // a Commit or Abort is in progress
	failed    bool          // an operation failed
	ops       int           // sends and acks in flight
	idle      chan struct{} // closed while ops == 0
	stopTimer func() bool

	regMu      sync.Mutex // serializes registrations with the coordinator
	partitions map[string]bool
	subs       map[[2]string]bool
}

// newTxn returns the state machine of the open transaction id, which turns
// into TxnTimeout when timeout passes while it is still open (as the
// official client's).
func newTxn(id api.TxnID, co *Coordinator, timeout time.Duration) *Txn {
	t := &Txn{id: id, co: co, state: api.TxnOpen, idle: make(chan struct{}),
		partitions: map[string]bool{}, subs: map[[2]string]bool{}}
	close(t.idle)
	t.mu.Lock()
	t.stopTimer = co.opts.Clock.AfterFunc(timeout, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.state == api.TxnOpen {
			t.state = api.TxnTimeout
		}
	})
	t.mu.Unlock()
	return t
}

// GetTxnID returns the transaction's id.
func (t *Txn) GetTxnID() api.TxnID { return t.id }

// GetState returns the transaction's state.
func (t *Txn) GetState() api.TxnState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state
}

// Commit waits for the transaction's in-flight sends and acks, at most
// the operation timeout, then commits it (END_TXN COMMIT). It fails with
// InvalidStatus unless the transaction is open (or TxnCommitting after a
// commit that failed with an error that may pass); with TimeoutError, and
// the state TxnTimeout, when the operations do not complete in time; with
// ctx's error, the transaction open again, when ctx ends first. A
// coordinator's TransactionNotFound or InvalidTxnStatus leaves it in
// TxnError. If one of its operations failed, it is aborted instead and
// Commit fails with InvalidStatus.
func (t *Txn) Commit(ctx context.Context) error {
	return t.end(ctx, proto.TxnAction_COMMIT)
}

// Abort is Commit's counterpart: it waits for the in-flight operations
// and aborts the transaction (END_TXN ABORT); its errors are Commit's.
func (t *Txn) Abort(ctx context.Context) error {
	return t.end(ctx, proto.TxnAction_ABORT)
}

func (t *Txn) end(ctx context.Context, action proto.TxnAction) error {
	during, done := api.TxnCommitting, api.TxnCommitted
	if action == proto.TxnAction_ABORT {
		during, done = api.TxnAborting, api.TxnAborted
	}
	t.mu.Lock()
	if t.ending || t.state != api.TxnOpen && t.state != during {
		st := t.state
		t.mu.Unlock()
		return stateError(st)
	}
	t.state, t.ending = during, true
	idle := t.idle
	t.mu.Unlock()

	if err := t.waitIdle(ctx, idle); err != nil {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.ending = false
		if resultOf(err) == api.TimeoutError {
			t.state = api.TxnTimeout
		} else {
			t.state = api.TxnOpen
		}
		return err
	}

	t.mu.Lock()
	failed := t.failed
	t.mu.Unlock()
	if failed && action == proto.TxnAction_COMMIT {
		err := t.co.endTxn(ctx, t.id, proto.TxnAction_ABORT)
		t.finish(api.TxnError)
		if err != nil {
			return err
		}
		return api.NewError(api.InvalidStatus, "a send or acknowledgment of the transaction failed: it was aborted")
	}

	err := t.co.endTxn(ctx, t.id, action)
	switch r := resultOf(err); {
	case err == nil:
		t.finish(done)
	case r == api.TransactionNoFoundError || r == api.InvalidStatus:
		t.finish(api.TxnError)
	default:
		// May pass if tried again: the state stays TxnCommitting (or
		// TxnAborting) and the same call may be made again.
		t.mu.Lock()
		t.ending = false
		t.mu.Unlock()
	}
	return err
}

// waitIdle waits until idle is closed, ctx ends or the operation timeout
// passes (on the coordinator's clock).
func (t *Txn) waitIdle(ctx context.Context, idle chan struct{}) error {
	select {
	case <-idle:
		return nil
	default:
	}
	expired := make(chan struct{})
	stop := t.co.opts.Clock.AfterFunc(t.co.opts.OperationTimeout, func() { close(expired) })
	defer stop()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-expired:
		return errOpsTimeout()
	}
}

// finish puts the transaction in its final state.
func (t *Txn) finish(state api.TxnState) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.state, t.ending = state, false
	t.stopTimer()
}

// verifyOpen fails with the official InvalidStatus error unless the
// transaction is open.
func (t *Txn) verifyOpen() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state != api.TxnOpen {
		return stateError(t.state)
	}
	return nil
}

// BeginOp counts a send or ack of the transaction as in flight, so that
// Commit and Abort wait for it; EndOp must follow. It fails with
// InvalidStatus unless the transaction is open.
func (t *Txn) BeginOp() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state != api.TxnOpen {
		return stateError(t.state)
	}
	t.ops++
	if t.ops == 1 {
		t.idle = make(chan struct{})
	}
	return nil
}

// EndOp ends an operation BeginOp counted; a failed one (err != nil) puts
// an open transaction in TxnError, as the official client does, and makes
// a Commit in progress abort instead.
func (t *Txn) EndOp(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		t.failed = true
		if t.state == api.TxnOpen {
			t.state = api.TxnError
		}
	}
	if t.ops == 0 {
		return
	}
	t.ops--
	if t.ops == 0 {
		close(t.idle)
	}
}

// RegisterPartition registers topic (a partition's full name) with the
// transaction before its first send there (ADD_PARTITION_TO_TXN once per
// topic). It fails with InvalidStatus unless the transaction is open, or
// with the coordinator's error.
func (t *Txn) RegisterPartition(ctx context.Context, topic string) error {
	if err := t.verifyOpen(); err != nil {
		return err
	}
	t.regMu.Lock()
	defer t.regMu.Unlock()
	if t.partitions[topic] {
		return nil
	}
	if err := t.co.addPartitions(ctx, t.id, []string{topic}); err != nil {
		return err
	}
	t.partitions[topic] = true
	return nil
}

// RegisterSubscription registers subscription sub of topic with the
// transaction before its first ack there (ADD_SUBSCRIPTION_TO_TXN once per
// pair); errors as RegisterPartition's.
func (t *Txn) RegisterSubscription(ctx context.Context, topic, sub string) error {
	if err := t.verifyOpen(); err != nil {
		return err
	}
	key := [2]string{topic, sub}
	t.regMu.Lock()
	defer t.regMu.Unlock()
	if t.subs[key] {
		return nil
	}
	if err := t.co.addSubscription(ctx, t.id, topic, sub); err != nil {
		return err
	}
	t.subs[key] = true
	return nil
}
