package pulsar

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
)

// resultOf returns the Result of the *Error err wraps, or -1.
func resultOf(err error) Result {
	var e *Error
	if errors.As(err, &e) {
		return e.Result()
	}
	var se *ServerError
	if errors.As(err, &se) {
		return se.Result()
	}
	return -1
}

// The sentinels carry the official client's Result and text.
func TestSentinelsAsOfficial(t *testing.T) {
	for _, c := range []struct {
		err    *Error
		result Result
		text   string
	}{
		{ErrSendTimeout, TimeoutError, "message send timeout: TimeoutError"},
		{ErrSendQueueIsFull, ProducerQueueIsFull, "producer send queue is full: ProducerQueueIsFull"},
		{ErrContextExpired, TimeoutError, "message send context expired: TimeoutError"},
		{ErrMessageTooLarge, MessageTooBig, "message size exceeds MaxMessageSize: MessageTooBig"},
		{ErrMetaTooLarge, InvalidMessage, "message metadata size exceeds MaxMessageSize: InvalidMessage"},
		{ErrProducerClosed, ProducerClosed, "producer already been closed: ProducerClosed"},
		{ErrMemoryBufferIsFull, ClientMemoryBufferIsFull, "client memory buffer is full: ClientMemoryBufferIsFull"},
		{ErrSchema, SchemaFailure, "schema error: SchemaFailure"},
		{ErrInvalidMessage, InvalidMessage, "invalid message: InvalidMessage"},
		{ErrTopicNotfound, TopicNotFound, "topic not found: TopicNotFound"},
		{ErrTopicTerminated, TopicTerminated, "topic terminated: TopicTerminated"},
		{ErrProducerBlockedQuotaExceeded, ProducerBlockedQuotaExceededException, "producer blocked: ProducerBlockedQuotaExceededException"},
		// The official client has no name for ProducerFenced in its table.
		{ErrProducerFenced, ProducerFenced, "producer fenced: Result(43)"},
		{ErrFailAddToBatch, AddToBatchFailed, "message add to batch failed: AddToBatchFailed"},
		{ErrConsumerClosed, ConsumerClosed, "consumer closed: ConsumerClosed"},
		{ErrConnectionFailed, ConnectError, "connection error: ConnectError"},
	} {
		if c.err.Result() != c.result || c.err.Error() != c.text {
			t.Errorf("%q (%d), want %q (%d)", c.err.Error(), c.err.Result(), c.text, c.result)
		}
	}
	if TransactionCoordinatorNotEnabled != 45 || ProducerFenced != 43 || Ok != 0 {
		t.Fatal("Result values differ from the official client's")
	}
	// The official cases of pulsargo's queue-full sentinel match it, not
	// each other.
	if !errors.Is(ErrSendQueueIsFull, ErrProducerQueueFull) || !errors.Is(ErrMemoryBufferIsFull, ErrProducerQueueFull) ||
		errors.Is(ErrMemoryBufferIsFull, ErrSendQueueIsFull) || errors.Is(ErrProducerQueueFull, ErrSendQueueIsFull) {
		t.Fatal("queue-full sentinels match wrongly")
	}
}

// brokerErr is the connection's error for a broker's answer with code.
func brokerErr(code string) error {
	return &conn.ServerError{Code: proto.ServerError(proto.ServerError_value[code]), Message: "m"}
}

// Broker errors match the official sentinels of their codes and map to
// Results as the official client does.
func TestServerErrorResults(t *testing.T) {
	for code, want := range map[string]*Error{
		"TopicNotFound": ErrTopicNotfound, "TopicTerminatedError": ErrTopicTerminated,
		"ProducerBlockedQuotaExceededException": ErrProducerBlockedQuotaExceeded,
		"ProducerBlockedQuotaExceededError":     ErrProducerBlockedQuotaExceeded, "ProducerFenced": ErrProducerFenced,
	} {
		err := wrapErr("op", brokerErr(code))
		if !errors.Is(err, want) || resultOf(err) != want.Result() {
			t.Errorf("%s: errors.Is %v false or Result %d", code, want, resultOf(err))
		}
		if !strings.Contains(err.Error(), "server error: "+code+": ") {
			t.Errorf("%s: text %q", code, err)
		}
	}
	for code, want := range map[string]Result{"TransactionNotFound": TransactionNoFoundError, "InvalidTxnStatus": InvalidStatus,
		"ConsumerBusy": UnknownError, "ServiceNotReady": UnknownError} {
		if got := resultOf(wrapErr("op", brokerErr(code))); got != want {
			t.Errorf("%s: Result %d, want %d", code, got, want)
		}
	}
	if errors.Is(wrapErr("op", brokerErr("ConsumerBusy")), ErrTopicNotfound) {
		t.Error("ConsumerBusy matches ErrTopicNotfound")
	}
}

// What a producer returns when it cannot hold a message matches both the
// official sentinels and pulsargo's, and the context's error.
func TestSendErrorsMatchOfficialSentinels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c, err := NewClient(ClientOptions{URL: b.URL(), Dialer: b.Dial, Logger: clientLogger(), MemoryLimitBytes: 1000})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		b.Intercept(func(ev brokerstub.Event) brokerstub.Action { return brokerstub.Action{Drop: ev.Type == "SEND"} })
		ctx := context.Background()
		full := testProducer(t, c, ProducerOptions{Topic: "full", DisableBatching: true, MaxPendingMessages: 1,
			DisableBlockIfQueueFull: true, SendTimeout: -1})
		full.SendAsync(ctx, &ProducerMessage{Payload: []byte("held")}, func(MessageID, *ProducerMessage, error) {})
		_, err = full.Send(ctx, &ProducerMessage{Payload: []byte("no room")})
		if !errors.Is(err, ErrSendQueueIsFull) || !errors.Is(err, ErrProducerQueueFull) || resultOf(err) != ProducerQueueIsFull {
			t.Fatalf("queue full: %v", err)
		}
		mem := testProducer(t, c, ProducerOptions{Topic: "mem", DisableBatching: true, DisableBlockIfQueueFull: true, SendTimeout: -1})
		mem.SendAsync(ctx, &ProducerMessage{Payload: make([]byte, 900)}, func(MessageID, *ProducerMessage, error) {})
		_, err = mem.Send(ctx, &ProducerMessage{Payload: make([]byte, 900)})
		if !errors.Is(err, ErrMemoryBufferIsFull) || !errors.Is(err, ErrProducerQueueFull) || errors.Is(err, ErrSendQueueIsFull) {
			t.Fatalf("memory full: %v", err)
		}
		block := testProducer(t, c, ProducerOptions{Topic: "block", DisableBatching: true, MaxPendingMessages: 1, SendTimeout: -1})
		block.SendAsync(ctx, &ProducerMessage{Payload: []byte("held")}, func(MessageID, *ProducerMessage, error) {})
		tctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		_, err = block.Send(tctx, &ProducerMessage{Payload: []byte("waits")})
		if !errors.Is(err, ErrContextExpired) || !errors.Is(err, context.DeadlineExceeded) || resultOf(err) != TimeoutError {
			t.Fatalf("blocked until the deadline: %v", err)
		}
		b.Intercept(nil)
	})
}

// A broker that cannot be reached gives the official "connection error".
func TestConnectErrorText(t *testing.T) {
	c, err := NewClient(ClientOptions{URL: "pulsar://127.0.0.1:1", OperationTimeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.CreateProducer(ProducerOptions{Topic: "t"})
	if err == nil || !strings.Contains(err.Error(), "connection error") || !errors.Is(err, ErrConnectionFailed) || resultOf(err) != ConnectError {
		t.Fatalf("CreateProducer on a closed port: %v", err)
	}
}
