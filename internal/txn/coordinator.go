package txn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/backoff"
	"github.com/pulsargo/sdk/internal/clock"
	"github.com/pulsargo/sdk/internal/proto"
)

// AssignTopic is the coordinator assign topic: its partition count is the
// number of transaction coordinators, and the broker that owns partition
// i hosts coordinator i.
const AssignTopic = "persistent://pulsar/system/transaction_coordinator_assign"

// AssignPartition returns the name of the assign topic's partition i, the
// topic looked up to find coordinator i.
func AssignPartition(i uint64) string {
	return AssignTopic + "-partition-" + strconv.FormatUint(i, 10)
}

// DefaultMaxConcurrent is how many coordinator requests may be in flight
// at once, as the official client's semaphore.
const DefaultMaxConcurrent = 1000

// Conn is what the coordinator client needs of a broker connection
// (*conn.Conn has it).
type Conn interface {
	// NewRequestID returns a request id unique on the connection.
	NewRequestID() uint64
	// Request sends cmd and waits for the response of its request id.
	Request(ctx context.Context, requestID uint64, cmd *proto.BaseCommand) (*proto.BaseCommand, error)
	// Done is closed when the connection has closed.
	Done() <-chan struct{}
}

// Options configure a Coordinator.
type Options struct {
	// Connect returns a connection to the broker of coordinator tc (that
	// of AssignPartition(tc)). Required.
	Connect func(ctx context.Context, tc uint64) (Conn, error)
	// OperationTimeout bounds each request to a coordinator and Commit's
	// and Abort's wait for in-flight operations. Default 30 s.
	OperationTimeout time.Duration
	// MaxConcurrent caps the requests in flight. Default
	// DefaultMaxConcurrent.
	MaxConcurrent int
	// Clock runs the transaction timeouts. Default clock.Real.
	Clock clock.Clock
	// Logger receives the client's logs. Default: discarded.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.OperationTimeout <= 0 {
		o.OperationTimeout = 30 * time.Second
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = DefaultMaxConcurrent
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Coordinator is the client of every transaction coordinator of a
// cluster. It is safe for concurrent use.
type Coordinator struct {
	opts     Options
	handlers []*handler
	next     atomic.Uint64 // round robin over the coordinators for NEW_TXN
	sem      chan struct{}
}

// Start connects to each of the n coordinators (TC_CLIENT_CONNECT), as the
// official client does when it is created with transactions. n is the
// partition count of AssignTopic; n <= 0 means the broker has no
// coordinator: api.ErrTransactionCoordinatorNotEnabled.
func Start(ctx context.Context, n int, opts Options) (*Coordinator, error) {
	if n <= 0 {
		return nil, api.ErrTransactionCoordinatorNotEnabled
	}
	opts = opts.withDefaults()
	co := &Coordinator{opts: opts, handlers: make([]*handler, n), sem: make(chan struct{}, opts.MaxConcurrent)}
	for i := range co.handlers {
		h := &handler{co: co, tc: uint64(i)}
		if _, err := h.conn(ctx); err != nil {
			return nil, fmt.Errorf("connect to transaction coordinator %d: %w", i, err)
		}
		co.handlers[i] = h
	}
	return co, nil
}

// NewTxn opens a transaction with timeout on the next coordinator (round
// robin) and returns its state machine.
func (co *Coordinator) NewTxn(ctx context.Context, timeout time.Duration) (*Txn, error) {
	h := co.handlers[co.next.Add(1)%uint64(len(co.handlers))]
	var id api.TxnID
	err := co.do(ctx, h, func(rid uint64) *proto.BaseCommand {
		return &proto.BaseCommand{Type: proto.BaseCommand_NEW_TXN.Enum(), NewTxn: &proto.CommandNewTxn{
			RequestId: gproto.Uint64(rid), TcId: gproto.Uint64(h.tc),
			// Milliseconds in the field named seconds, as the official
			// clients send it and the broker reads it.
			TxnTtlSeconds: gproto.Uint64(uint64(timeout.Milliseconds())),
		}}
	}, func(resp *proto.BaseCommand) error {
		r := resp.GetNewTxnResponse()
		if r == nil {
			return fmt.Errorf("%w: NEW_TXN answered with %s", api.ErrTransaction, resp.GetType())
		}
		if err := responseError(r.Error, r.GetMessage()); err != nil {
			return err
		}
		if r.TxnidMostBits == nil || r.TxnidLeastBits == nil {
			return fmt.Errorf("%w: NEW_TXN response without a transaction id", api.ErrTransaction)
		}
		id = api.TxnID{MostSigBits: r.GetTxnidMostBits(), LeastSigBits: r.GetTxnidLeastBits()}
		if id.MostSigBits >= uint64(len(co.handlers)) {
			return fmt.Errorf("%w: coordinator %d answered transaction id %v of coordinator %d, of %d", api.ErrTransaction,
				h.tc, id, id.MostSigBits, len(co.handlers))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return newTxn(id, co, timeout), nil
}

// addPartitions registers topics (partitions) with the transaction before
// its first send to them (ADD_PARTITION_TO_TXN).
func (co *Coordinator) addPartitions(ctx context.Context, id api.TxnID, topics []string) error {
	h, err := co.handlerOf(id)
	if err != nil {
		return err
	}
	return co.do(ctx, h, func(rid uint64) *proto.BaseCommand {
		return &proto.BaseCommand{Type: proto.BaseCommand_ADD_PARTITION_TO_TXN.Enum(), AddPartitionToTxn: &proto.CommandAddPartitionToTxn{
			RequestId: gproto.Uint64(rid), TxnidMostBits: gproto.Uint64(id.MostSigBits),
			TxnidLeastBits: gproto.Uint64(id.LeastSigBits), Partitions: topics,
		}}
	}, func(resp *proto.BaseCommand) error {
		r := resp.GetAddPartitionToTxnResponse()
		if r == nil {
			return fmt.Errorf("%w: ADD_PARTITION_TO_TXN answered with %s", api.ErrTransaction, resp.GetType())
		}
		return responseError(r.Error, r.GetMessage())
	})
}

// addSubscription registers a subscription of topic with the transaction
// before its first ack there (ADD_SUBSCRIPTION_TO_TXN).
func (co *Coordinator) addSubscription(ctx context.Context, id api.TxnID, topic, sub string) error {
	h, err := co.handlerOf(id)
	if err != nil {
		return err
	}
	return co.do(ctx, h, func(rid uint64) *proto.BaseCommand {
		return &proto.BaseCommand{Type: proto.BaseCommand_ADD_SUBSCRIPTION_TO_TXN.Enum(), AddSubscriptionToTxn: &proto.CommandAddSubscriptionToTxn{
			RequestId: gproto.Uint64(rid), TxnidMostBits: gproto.Uint64(id.MostSigBits),
			TxnidLeastBits: gproto.Uint64(id.LeastSigBits),
			Subscription:   []*proto.Subscription{{Topic: gproto.String(topic), Subscription: gproto.String(sub)}},
		}}
	}, func(resp *proto.BaseCommand) error {
		r := resp.GetAddSubscriptionToTxnResponse()
		if r == nil {
			return fmt.Errorf("%w: ADD_SUBSCRIPTION_TO_TXN answered with %s", api.ErrTransaction, resp.GetType())
		}
		return responseError(r.Error, r.GetMessage())
	})
}

// endTxn commits or aborts the transaction (END_TXN).
func (co *Coordinator) endTxn(ctx context.Context, id api.TxnID, action proto.TxnAction) error {
	h, err := co.handlerOf(id)
	if err != nil {
		return err
	}
	return co.do(ctx, h, func(rid uint64) *proto.BaseCommand {
		return &proto.BaseCommand{Type: proto.BaseCommand_END_TXN.Enum(), EndTxn: &proto.CommandEndTxn{
			RequestId: gproto.Uint64(rid), TxnidMostBits: gproto.Uint64(id.MostSigBits),
			TxnidLeastBits: gproto.Uint64(id.LeastSigBits), TxnAction: action.Enum(),
		}}
	}, func(resp *proto.BaseCommand) error {
		r := resp.GetEndTxnResponse()
		if r == nil {
			return fmt.Errorf("%w: END_TXN answered with %s", api.ErrTransaction, resp.GetType())
		}
		return responseError(r.Error, r.GetMessage())
	})
}

// handlerOf returns the coordinator of id (its most significant bits).
func (co *Coordinator) handlerOf(id api.TxnID) (*handler, error) {
	if id.MostSigBits >= uint64(len(co.handlers)) {
		return nil, api.NewError(api.TransactionNoFoundError, fmt.Sprintf("transaction %v names coordinator %d of %d", id, id.MostSigBits, len(co.handlers)))
	}
	return co.handlers[id.MostSigBits], nil
}

// do sends the request build makes on h's connection and checks the
// response with check, within the operation timeout and ctx. A request
// whose connection closes is sent again on a new one (TC_CLIENT_CONNECT
// first), as the official client retries it.
func (co *Coordinator) do(ctx context.Context, h *handler, build func(rid uint64) *proto.BaseCommand, check func(*proto.BaseCommand) error) error {
	select {
	case co.sem <- struct{}{}:
	default:
		select {
		case co.sem <- struct{}{}:
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", api.ErrMaxConcurrentOpsReached, ctx.Err())
		}
	}
	defer func() { <-co.sem }()
	ctx, cancel := context.WithTimeout(ctx, co.opts.OperationTimeout)
	defer cancel()
	bo := backoff.New(50*time.Millisecond, time.Second)
	for {
		cn, err := h.conn(ctx)
		if err != nil {
			return err
		}
		rid := cn.NewRequestID()
		resp, err := cn.Request(ctx, rid, build(rid))
		if err == nil {
			return check(resp)
		}
		if !errors.Is(err, api.ErrConnectionClosed) {
			return requestError(err)
		}
		h.drop(cn)
		co.opts.Logger.Debug("transaction coordinator connection closed: retrying", "tc", h.tc, "err", err)
		t := time.NewTimer(bo.Next())
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return err
		}
	}
}

// handler is the connection to one coordinator.
type handler struct {
	co *Coordinator
	tc uint64

	mu sync.Mutex // serializes connecting
	cn Conn
}

// conn returns the connection to the coordinator, connecting
// (TC_CLIENT_CONNECT) when there is none or it closed.
func (h *handler) conn(ctx context.Context) (Conn, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cn != nil {
		select {
		case <-h.cn.Done():
			h.cn = nil
		default:
			return h.cn, nil
		}
	}
	ctx, cancel := context.WithTimeout(ctx, h.co.opts.OperationTimeout)
	defer cancel()
	cn, err := h.co.opts.Connect(ctx, h.tc)
	if err != nil {
		return nil, err
	}
	rid := cn.NewRequestID()
	resp, err := cn.Request(ctx, rid, &proto.BaseCommand{
		Type:                   proto.BaseCommand_TC_CLIENT_CONNECT_REQUEST.Enum(),
		TcClientConnectRequest: &proto.CommandTcClientConnectRequest{RequestId: gproto.Uint64(rid), TcId: gproto.Uint64(h.tc)},
	})
	if err != nil {
		return nil, requestError(err)
	}
	r := resp.GetTcClientConnectResponse()
	if r == nil {
		return nil, fmt.Errorf("%w: TC_CLIENT_CONNECT answered with %s", api.ErrTransaction, resp.GetType())
	}
	if err := responseError(r.Error, r.GetMessage()); err != nil {
		return nil, err
	}
	h.cn = cn
	h.co.opts.Logger.Debug("connected to transaction coordinator", "tc", h.tc)
	return cn, nil
}

// drop forgets cn if it is still the handler's connection.
func (h *handler) drop(cn Conn) {
	h.mu.Lock()
	if h.cn == cn {
		h.cn = nil
	}
	h.mu.Unlock()
}
