package txn

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/proto"
)

func resultIs(t *testing.T, err error, want api.Result) {
	t.Helper()
	var e *api.Error
	if !errors.As(err, &e) || e.Result() != want {
		t.Fatalf("error %v: want an *Error with Result %v", err, want)
	}
}

func TestStartConnectsEveryCoordinator(t *testing.T) {
	f := newFixture(t, 3)
	if !slices.Equal(f.dials, []uint64{0, 1, 2}) {
		t.Fatalf("dialed %v", f.dials)
	}
	for i, c := range f.conns {
		cmd := c.last(proto.BaseCommand_TC_CLIENT_CONNECT_REQUEST)
		if cmd == nil || cmd.GetTcClientConnectRequest().GetTcId() != uint64(i) {
			t.Fatalf("coordinator %d got %v", i, c.types())
		}
	}
	if AssignPartition(2) != "persistent://pulsar/system/transaction_coordinator_assign-partition-2" {
		t.Fatal(AssignPartition(2))
	}
}

func TestStartWithoutCoordinator(t *testing.T) {
	_, err := Start(context.Background(), 0, Options{})
	if !errors.Is(err, api.ErrTransactionCoordinatorNotEnabled) {
		t.Fatalf("got %v", err)
	}
	resultIs(t, err, api.TransactionCoordinatorNotEnabled)
}

func TestStartRefusedByCoordinator(t *testing.T) {
	c := newScriptConn(0)
	c.answer = func(cmd *proto.BaseCommand) (*proto.BaseCommand, error) {
		code := proto.ServerError_ServiceNotReady
		return &proto.BaseCommand{Type: proto.BaseCommand_TC_CLIENT_CONNECT_RESPONSE.Enum(),
			TcClientConnectResponse: &proto.CommandTcClientConnectResponse{
				RequestId: cmd.GetTcClientConnectRequest().RequestId, Error: &code}}, nil
	}
	_, err := Start(context.Background(), 1, Options{Connect: func(context.Context, uint64) (Conn, error) { return c, nil }})
	resultIs(t, err, api.UnknownError)
}

func TestNewTxnRoundRobinAndTTL(t *testing.T) {
	f := newFixture(t, 2)
	a := f.newTxn(t, 90*time.Second)
	b := f.newTxn(t, time.Minute)
	if a.GetTxnID().MostSigBits == b.GetTxnID().MostSigBits {
		t.Fatalf("both on coordinator %d", a.GetTxnID().MostSigBits)
	}
	cmd := f.conns[a.GetTxnID().MostSigBits].last(proto.BaseCommand_NEW_TXN)
	// The official clients send milliseconds in txn_ttl_seconds.
	if got := cmd.GetNewTxn().GetTxnTtlSeconds(); got != 90000 {
		t.Fatalf("ttl %d, want 90000 (ms)", got)
	}
	if cmd.GetNewTxn().GetTcId() != a.GetTxnID().MostSigBits {
		t.Fatalf("tc_id %d on coordinator %d", cmd.GetNewTxn().GetTcId(), a.GetTxnID().MostSigBits)
	}
	if a.GetState() != api.TxnOpen {
		t.Fatal(a.GetState())
	}
}

func TestNewTxnForgedResponse(t *testing.T) {
	f := newFixture(t, 1)
	f.conns[0].answer = func(cmd *proto.BaseCommand) (*proto.BaseCommand, error) {
		r := success(cmd, cmd.GetNewTxn().GetRequestId(), 7, 1) // names coordinator 7 of 1
		return r, nil
	}
	if _, err := f.co.NewTxn(context.Background(), time.Minute); !errors.Is(err, api.ErrTransaction) {
		t.Fatalf("got %v", err)
	}
	f.conns[0].answer = func(cmd *proto.BaseCommand) (*proto.BaseCommand, error) {
		r := success(cmd, cmd.GetNewTxn().GetRequestId(), 0, 1)
		r.NewTxnResponse.TxnidLeastBits = nil
		return r, nil
	}
	if _, err := f.co.NewTxn(context.Background(), time.Minute); !errors.Is(err, api.ErrTransaction) {
		t.Fatalf("got %v", err)
	}
	// An id naming no coordinator is refused before anything is sent.
	tx := newTxn(api.TxnID{MostSigBits: 99}, f.co, time.Minute)
	resultIs(t, tx.Commit(context.Background()), api.TransactionNoFoundError)
}

func TestTimeoutMakesTxnTimeout(t *testing.T) {
	f := newFixture(t, 1)
	tx := f.newTxn(t, time.Minute)
	f.clock.Advance(59 * time.Second)
	if tx.GetState() != api.TxnOpen {
		t.Fatal(tx.GetState())
	}
	f.clock.Advance(time.Second)
	if tx.GetState() != api.TxnTimeout {
		t.Fatal(tx.GetState())
	}
	err := tx.Commit(context.Background())
	resultIs(t, err, api.InvalidStatus)
	// The official text; like the official client, the Result has no name.
	if err.Error() != "Expected transaction state: TxnOpen, actual: TxnTimeout: Result(40)" {
		t.Fatalf("text %q", err.Error())
	}
	resultIs(t, tx.BeginOp(), api.InvalidStatus)
	resultIs(t, tx.RegisterPartition(context.Background(), "t"), api.InvalidStatus)
	if f.conns[0].last(proto.BaseCommand_END_TXN) != nil || f.conns[0].last(proto.BaseCommand_ADD_PARTITION_TO_TXN) != nil {
		t.Fatalf("sent %v", f.conns[0].types())
	}
}

func TestCommitWaitsForOperations(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 1)
		tx := f.newTxn(t, time.Hour)
		for range 2 {
			if err := tx.BeginOp(); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan error, 1)
		go func() { done <- tx.Commit(context.Background()) }()
		synctest.Wait()
		if tx.GetState() != api.TxnCommitting || f.conns[0].last(proto.BaseCommand_END_TXN) != nil {
			t.Fatalf("state %v, sent %v before the operations ended", tx.GetState(), f.conns[0].types())
		}
		resultIs(t, tx.BeginOp(), api.InvalidStatus) // no new operation once committing
		tx.EndOp(nil)
		synctest.Wait()
		if f.conns[0].last(proto.BaseCommand_END_TXN) != nil {
			t.Fatal("END_TXN with an operation in flight")
		}
		tx.EndOp(nil)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		end := f.conns[0].last(proto.BaseCommand_END_TXN).GetEndTxn()
		if end.GetTxnAction() != proto.TxnAction_COMMIT || end.GetTxnidLeastBits() != tx.GetTxnID().LeastSigBits {
			t.Fatalf("END_TXN %v", end)
		}
		if tx.GetState() != api.TxnCommitted {
			t.Fatal(tx.GetState())
		}
		resultIs(t, tx.Abort(context.Background()), api.InvalidStatus)
	})
}

func TestCommitOperationsTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 1)
		tx := f.newTxn(t, time.Hour)
		if err := tx.BeginOp(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- tx.Abort(context.Background()) }()
		synctest.Wait()
		f.clock.Advance(opTimeout)
		err := <-done
		resultIs(t, err, api.TimeoutError)
		if tx.GetState() != api.TxnTimeout || f.conns[0].last(proto.BaseCommand_END_TXN) != nil {
			t.Fatalf("state %v, sent %v", tx.GetState(), f.conns[0].types())
		}
	})
}

func TestCommitContextEndsReopens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 1)
		tx := f.newTxn(t, time.Hour)
		if err := tx.BeginOp(); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- tx.Commit(ctx) }()
		synctest.Wait()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		if tx.GetState() != api.TxnOpen {
			t.Fatal(tx.GetState())
		}
		tx.EndOp(nil)
		if err := tx.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

func TestFailedOperationMakesTxnError(t *testing.T) {
	f := newFixture(t, 1)
	tx := f.newTxn(t, time.Hour)
	if err := tx.BeginOp(); err != nil {
		t.Fatal(err)
	}
	tx.EndOp(errors.New("send failed"))
	if tx.GetState() != api.TxnError {
		t.Fatal(tx.GetState())
	}
	resultIs(t, tx.Commit(context.Background()), api.InvalidStatus)
	resultIs(t, tx.Abort(context.Background()), api.InvalidStatus)
}

func TestOperationFailingDuringCommitAborts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 1)
		tx := f.newTxn(t, time.Hour)
		if err := tx.BeginOp(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- tx.Commit(context.Background()) }()
		synctest.Wait()
		tx.EndOp(errors.New("send failed"))
		resultIs(t, <-done, api.InvalidStatus)
		end := f.conns[0].last(proto.BaseCommand_END_TXN).GetEndTxn()
		if end.GetTxnAction() != proto.TxnAction_ABORT || tx.GetState() != api.TxnError {
			t.Fatalf("END_TXN %v, state %v", end, tx.GetState())
		}
	})
}

func TestEndTxnErrors(t *testing.T) {
	f := newFixture(t, 1)
	// TransactionNotFound: TxnError, as the official client.
	tx := f.newTxn(t, time.Hour)
	f.conns[0].answer = func(cmd *proto.BaseCommand) (*proto.BaseCommand, error) {
		if cmd.GetType() == proto.BaseCommand_END_TXN {
			return endTxnError(cmd, proto.ServerError_TransactionNotFound), nil
		}
		return nil, nil
	}
	resultIs(t, tx.Commit(context.Background()), api.TransactionNoFoundError)
	if tx.GetState() != api.TxnError {
		t.Fatal(tx.GetState())
	}
	// InvalidTxnStatus: InvalidStatus and TxnError.
	tx = f.newTxn(t, time.Hour)
	f.conns[0].answer = func(cmd *proto.BaseCommand) (*proto.BaseCommand, error) {
		if cmd.GetType() == proto.BaseCommand_END_TXN {
			return endTxnError(cmd, proto.ServerError_InvalidTxnStatus), nil
		}
		return nil, nil
	}
	resultIs(t, tx.Abort(context.Background()), api.InvalidStatus)
	if tx.GetState() != api.TxnError {
		t.Fatal(tx.GetState())
	}
	// Another code may pass: the state stays TxnCommitting and Commit may
	// be called again.
	tx = f.newTxn(t, time.Hour)
	fail := true
	f.conns[0].answer = func(cmd *proto.BaseCommand) (*proto.BaseCommand, error) {
		if cmd.GetType() == proto.BaseCommand_END_TXN && fail {
			fail = false
			return endTxnError(cmd, proto.ServerError_ServiceNotReady), nil
		}
		return nil, nil
	}
	resultIs(t, tx.Commit(context.Background()), api.UnknownError)
	if tx.GetState() != api.TxnCommitting {
		t.Fatal(tx.GetState())
	}
	resultIs(t, tx.Abort(context.Background()), api.InvalidStatus)
	if err := tx.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if tx.GetState() != api.TxnCommitted {
		t.Fatal(tx.GetState())
	}
}

func TestRegisterOncePerPartitionAndSubscription(t *testing.T) {
	f := newFixture(t, 1)
	tx := f.newTxn(t, time.Hour)
	ctx := context.Background()
	for range 3 {
		if err := tx.RegisterPartition(ctx, "persistent://a/b/t-partition-0"); err != nil {
			t.Fatal(err)
		}
		if err := tx.RegisterSubscription(ctx, "persistent://a/b/t-partition-0", "s"); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.RegisterSubscription(ctx, "persistent://a/b/t-partition-0", "s2"); err != nil {
		t.Fatal(err)
	}
	var parts, subs int
	for _, ty := range f.conns[0].types() {
		switch ty {
		case proto.BaseCommand_ADD_PARTITION_TO_TXN:
			parts++
		case proto.BaseCommand_ADD_SUBSCRIPTION_TO_TXN:
			subs++
		}
	}
	if parts != 1 || subs != 2 {
		t.Fatalf("%d ADD_PARTITION_TO_TXN, %d ADD_SUBSCRIPTION_TO_TXN", parts, subs)
	}
	add := f.conns[0].last(proto.BaseCommand_ADD_SUBSCRIPTION_TO_TXN).GetAddSubscriptionToTxn()
	if s := add.GetSubscription(); len(s) != 1 || s[0].GetSubscription() != "s2" || add.GetTxnidMostBits() != tx.GetTxnID().MostSigBits {
		t.Fatalf("ADD_SUBSCRIPTION_TO_TXN %v", add)
	}
	// A refused registration is not remembered.
	f.conns[0].answer = func(cmd *proto.BaseCommand) (*proto.BaseCommand, error) {
		if cmd.GetType() == proto.BaseCommand_ADD_PARTITION_TO_TXN {
			code := proto.ServerError_TransactionNotFound
			return &proto.BaseCommand{Type: proto.BaseCommand_ADD_PARTITION_TO_TXN_RESPONSE.Enum(),
				AddPartitionToTxnResponse: &proto.CommandAddPartitionToTxnResponse{RequestId: cmd.GetAddPartitionToTxn().RequestId, Error: &code}}, nil
		}
		return nil, nil
	}
	resultIs(t, tx.RegisterPartition(ctx, "persistent://a/b/u"), api.TransactionNoFoundError)
	f.conns[0].answer = nil
	if err := tx.RegisterPartition(ctx, "persistent://a/b/u"); err != nil {
		t.Fatal(err)
	}
}

func TestReconnectsAfterConnectionClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 1)
		tx := f.newTxn(t, time.Hour)
		old := f.conns[0]
		f.mu.Lock()
		f.conns[0] = newScriptConn(0)
		f.mu.Unlock()
		old.answer = func(*proto.BaseCommand) (*proto.BaseCommand, error) {
			return nil, api.ErrConnectionClosed
		}
		old.close()
		if err := tx.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := f.conns[0].types(); !slices.Equal(got, []proto.BaseCommand_Type{proto.BaseCommand_TC_CLIENT_CONNECT_REQUEST, proto.BaseCommand_END_TXN}) {
			t.Fatalf("new connection got %v", got)
		}
	})
}
