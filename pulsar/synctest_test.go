package pulsar

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
)

// TestSynctestBubble shows the pattern the time-dependent client tests use:
// a broker with no TCP listener and a client on its in-memory Dial, both
// inside a testing/synctest bubble, so that the client's timers (here the
// send timeout of a message the broker never answers) run on the bubble's
// fake clock: the test takes no wall time and cannot flake.
func TestSynctestBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c, err := NewClient(ClientOptions{URL: b.URL(), Dialer: b.Dial, Logger: clientLogger()})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		p, err := c.CreateProducer(ProducerOptions{Topic: "synctest", SendTimeout: 3 * time.Second, DisableBatching: true})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if _, err := p.Send(context.Background(), &ProducerMessage{Payload: []byte("answered")}); err != nil {
			t.Fatal(err)
		}
		b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
			return brokerstub.Action{Drop: ev.Type == "SEND"}
		})
		start := time.Now()
		_, err = p.Send(context.Background(), &ProducerMessage{Payload: []byte("dropped")})
		if err == nil {
			t.Fatal("Send of a dropped message succeeded")
		}
		if got := time.Since(start); got < 3*time.Second {
			t.Fatalf("Send failed after %v of bubble time, before the 3s send timeout: %v", got, err)
		}
		b.Intercept(nil)
	})
}
