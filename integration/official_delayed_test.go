package integration

import (
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
)

// TestOfficialDeliverAfterShared is the scenario of the official client's
// TestDelayRelative and TestDelayAbsolute on the stub's fake clock: a
// message sent with DeliverAfter (or DeliverAt) on a Shared subscription is
// held until its time, later messages are not held behind it, and it comes
// when the broker's clock reaches its time.
func TestOfficialDeliverAfterShared(t *testing.T) {
	for _, absolute := range []bool{false, true} {
		name := "relative"
		if absolute {
			name = "absolute"
		}
		t.Run(name, func(t *testing.T) {
			clk := brokerstub.NewFakeClock(time.Now())
			b := startStub(t, brokerstub.Options{Clock: clk})
			client := officialClient(t, b.URL())
			topic := newTopic(t)
			cons, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "subName", Type: official.Shared})
			require.NoError(t, err)
			defer cons.Close()
			prod, err := client.CreateProducer(official.ProducerOptions{Topic: topic})
			require.NoError(t, err)
			defer prod.Close()

			msg := &official.ProducerMessage{Payload: []byte("test"), DeliverAfter: time.Hour}
			if absolute {
				msg = &official.ProducerMessage{Payload: []byte("test"), DeliverAt: time.Now().Add(time.Hour)}
			}
			held, err := prod.Send(ctxT(t), msg)
			require.NoError(t, err)
			due := time.Now().Add(time.Hour) // no earlier than the client's deliver_at_time
			_, err = prod.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("now")})
			require.NoError(t, err)
			got := receiveN(t, cons, 1)
			assert.Equal(t, "now", string(got[0].Payload()), "the delayed message does not hold back the next")
			require.NoError(t, cons.Ack(got[0]))
			delayed, err := b.Delayed(topic, "subName")
			require.NoError(t, err)
			require.Equal(t, []brokerstub.Position{{Ledger: held.LedgerID(), Entry: held.EntryID()}}, delayed, "read and held")

			clk.Advance(due.Sub(clk.Now()))
			got = receiveN(t, cons, 1)
			assert.Equal(t, "test", string(got[0].Payload()))
			assert.Equal(t, held.EntryID(), got[0].ID().EntryID())
		})
	}
}

// TestOfficialKeySharedWithDelayedMessages is the official client's
// TestConsumerKeySharedWithDelayedMessages on the fake clock: 100 delayed
// keyed messages on a Key_Shared subscription with two consumers are all
// held, then all delivered, spread over both consumers, each key to one.
func TestOfficialKeySharedWithDelayedMessages(t *testing.T) {
	clk := brokerstub.NewFakeClock(time.Now())
	b := startStub(t, brokerstub.Options{Clock: clk})
	client := officialClient(t, b.URL())
	topic := newTopic(t)
	var cons [2]official.Consumer
	for i := range cons {
		c, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "sub-1", Type: official.KeyShared})
		require.NoError(t, err)
		defer c.Close()
		cons[i] = c
	}
	prod, err := client.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	defer prod.Close()
	for i := range 100 {
		_, err := prod.Send(ctxT(t), &official.ProducerMessage{Key: "key-shared-" + string(rune('0'+i%3)),
			Payload: []byte{byte(i)}, DeliverAfter: 3 * time.Second})
		require.NoError(t, err)
	}
	due := time.Now().Add(3 * time.Second)
	require.Eventually(t, func() bool {
		d, err := b.Delayed(topic, "sub-1")
		return err == nil && len(d) == 100
	}, 10*time.Second, time.Millisecond, "all 100 held")
	clk.Advance(due.Sub(clk.Now()))
	owner := map[string]int{}
	counts := [2]int{}
	ctx := ctxT(t)
	for total := 0; total < 100; total++ {
		var cm official.ConsumerMessage
		var i int
		select {
		case cm = <-cons[0].Chan():
		case cm = <-cons[1].Chan():
			i = 1
		case <-ctx.Done():
			t.Fatalf("received %d of 100", total)
		}
		if o, ok := owner[cm.Key()]; ok {
			require.Equal(t, o, i, "key %s at one consumer", cm.Key())
		}
		owner[cm.Key()] = i
		require.NoError(t, cm.Consumer.Ack(cm.Message))
		counts[i]++
	}
	assert.Len(t, owner, 3)
	t.Logf("consumer 1 got %d, consumer 2 got %d", counts[0], counts[1])
}
