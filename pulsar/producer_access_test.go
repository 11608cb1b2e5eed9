package pulsar

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
)

func TestProducerAccessModes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		var l commandLog
		b.Intercept(l.record)
		c, err := NewClient(ClientOptions{URL: b.URL(), Dialer: b.Dial, Logger: clientLogger()})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		topic := "access-modes"
		p1, err := c.CreateProducer(ProducerOptions{Topic: topic, ProducerAccessMode: ProducerAccessModeExclusive})
		if err != nil {
			t.Fatal(err)
		}
		defer p1.Close()
		if d := l.of("PRODUCER")[0].Detail; !strings.Contains(d, "producer_access_mode:Exclusive") {
			t.Fatalf("PRODUCER lacks the access mode: %s", d)
		}
		_, err = c.CreateProducer(ProducerOptions{Topic: topic, ProducerAccessMode: ProducerAccessModeExclusive})
		var se *ServerError
		if !errors.Is(err, ErrProducerFenced) || !errors.As(err, &se) || se.Result() != ProducerFenced || !strings.Contains(err.Error(), "ProducerFenced") {
			t.Fatalf("second exclusive producer: %v, want ErrProducerFenced", err)
		}
		_, err = c.CreateProducer(ProducerOptions{Topic: topic})
		if err == nil || !strings.Contains(err.Error(), "ProducerBusy") || errors.Is(err, ErrProducerFenced) {
			t.Fatalf("shared producer beside an exclusive one: %v, want ProducerBusy", err)
		}
		if _, err := c.CreateProducer(ProducerOptions{Topic: topic, ProducerAccessMode: 7}); !errors.Is(err, ErrInvalidOptions) {
			t.Fatalf("access mode 7: %v", err)
		}
	})
}

// A WaitForExclusive producer's creation outlasts the operation timeout
// while the broker keeps it queued, and completes when the exclusive
// producer leaves (the official TestWaitForExclusiveProducer).
func TestWaitForExclusiveProducer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c, err := NewClient(ClientOptions{URL: b.URL(), Dialer: b.Dial, Logger: clientLogger(), OperationTimeout: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		topic := "wait-for-exclusive"
		p1, err := c.CreateProducer(ProducerOptions{Topic: topic, ProducerAccessMode: ProducerAccessModeExclusive})
		if err != nil {
			t.Fatal(err)
		}
		type result struct {
			p   Producer
			err error
		}
		done := make(chan result, 1)
		go func() {
			p, err := c.CreateProducer(ProducerOptions{Topic: topic, ProducerAccessMode: ProducerAccessModeWaitForExclusive})
			done <- result{p, err}
		}()
		time.Sleep(10 * time.Second)
		synctest.Wait()
		select {
		case r := <-done:
			t.Fatalf("WaitForExclusive creation returned while the exclusive producer is attached: %v", r.err)
		default:
		}
		p1.Close()
		r := <-done
		if r.err != nil {
			t.Fatal(r.err)
		}
		defer r.p.Close()
		if _, err := r.p.Send(context.Background(), &ProducerMessage{Payload: []byte("mine now")}); err != nil {
			t.Fatal(err)
		}
	})
}
