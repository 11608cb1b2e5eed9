package pulsar

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
)

// TestEngineErrorsAreSentinels checks that the errors the producer and
// consumer engines return reach the user satisfying errors.Is with this
// package's sentinels (which internal/api defines once and the engines
// return directly): closed, timeout, queue full, too large, invalid.
func TestEngineErrorsAreSentinels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c, err := NewClient(ClientOptions{URL: b.URL(), Dialer: b.Dial, Logger: clientLogger(),
			OperationTimeout: 2 * time.Second, MemoryLimitBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx := context.Background()
		is := func(what string, err, want error) {
			t.Helper()
			if !errors.Is(err, want) {
				t.Errorf("%s: %v, want errors.Is %v", what, err, want)
			}
		}

		// Producer engine.
		p := testProducer(t, c, ProducerOptions{Topic: "errs", SendTimeout: 3 * time.Second, DisableBatching: true,
			MaxPendingMessages: 1, DisableBlockIfQueueFull: true})
		_, err = p.Send(ctx, &ProducerMessage{Payload: make([]byte, 2<<20)})
		is("Send over the memory limit", err, ErrMessageTooLarge)
		b.Intercept(func(ev brokerstub.Event) brokerstub.Action { return brokerstub.Action{Drop: ev.Type == "SEND"} })
		timedOut := make(chan error, 1)
		p.SendAsync(ctx, &ProducerMessage{Payload: []byte("dropped")}, func(_ MessageID, _ *ProducerMessage, err error) {
			timedOut <- err
		})
		_, err = p.Send(ctx, &ProducerMessage{Payload: []byte("second")})
		is("Send with MaxPendingMessages reached", err, ErrProducerQueueFull)
		is("send timeout", <-timedOut, ErrSendTimeout)
		b.Intercept(nil)
		p.Close()
		_, err = p.Send(ctx, &ProducerMessage{Payload: []byte("late")})
		is("Send after Close", err, ErrProducerClosed)
		is("Flush after Close", p.Flush(), ErrProducerClosed)

		// Consumer engine.
		cons, err := c.Subscribe(ConsumerOptions{Topic: "errs", SubscriptionName: "s", Type: Shared})
		if err != nil {
			t.Fatal(err)
		}
		is("AckIDCumulative on Shared", cons.AckIDCumulative(NewMessageID(1, 1, -1, -1)), ErrInvalidOptions)
		is("AckIDCumulative on Shared", cons.AckIDCumulative(NewMessageID(1, 1, -1, -1)), ErrInvalidAck)
		b.Intercept(func(ev brokerstub.Event) brokerstub.Action { return brokerstub.Action{Drop: ev.Type == "SEEK"} })
		is("Seek the broker does not answer", cons.Seek(EarliestMessageID()), ErrTimeout)
		b.Intercept(nil)
		cons.Close()
		_, err = cons.Receive(ctx)
		is("Receive after Close", err, ErrConsumerClosed)
		is("AckID after Close", cons.AckID(NewMessageID(1, 1, -1, -1)), ErrConsumerClosed)

		r, err := c.CreateReader(ReaderOptions{Topic: "errs", StartMessageID: EarliestMessageID()})
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		_, err = r.Next(ctx)
		is("Reader.Next after Close", err, ErrConsumerClosed)

		// Client.
		c.Close()
		_, err = c.CreateProducer(ProducerOptions{Topic: "errs"})
		is("CreateProducer after Close", err, ErrClientClosed)
		_, err = c.Subscribe(ConsumerOptions{Topic: "errs", SubscriptionName: "s2"})
		is("Subscribe after Close", err, ErrClientClosed)
	})
}

// TestSendAsyncCallbackArguments: SendAsync's callback (called without a
// closure per message since issue #35) gets the message it was given, the
// id, and on failure the package's sentinel.
func TestSendAsyncCallbackArguments(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p := testProducer(t, v.c, ProducerOptions{Topic: topic})
		type outcome struct {
			id  MessageID
			msg *ProducerMessage
			err error
		}
		got := make(chan outcome, 2)
		cb := func(id MessageID, msg *ProducerMessage, err error) { got <- outcome{id, msg, err} }
		sent := &ProducerMessage{Payload: []byte("one")}
		p.SendAsync(csCtx(t), sent, cb)
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		if o := <-got; o.err != nil || o.msg != sent || o.id == nil || o.id.BatchIdx() != 0 {
			t.Fatalf("callback got id %v, message %p (sent %p), err %v", o.id, o.msg, sent, o.err)
		}
		p.Close()
		late := &ProducerMessage{Payload: []byte("late")}
		p.SendAsync(csCtx(t), late, cb)
		o := <-got
		if !errors.Is(o.err, ErrProducerClosed) || o.msg != late || o.id != nil {
			t.Fatalf("after Close: callback got id %v, message %p (sent %p), err %v; want ErrProducerClosed", o.id, o.msg, late, o.err)
		}
	})
}
