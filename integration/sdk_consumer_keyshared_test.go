package integration

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/brokerstub/keyorder"
	"github.com/pulsargo/sdk/messageid"
	"github.com/pulsargo/sdk/pulsar"
)

// ksMember is one SDK Key_Shared consumer recording into the checker.
type ksMember struct {
	name   string
	cons   pulsar.Consumer
	cancel context.CancelFunc
	done   chan struct{}
}

func joinKS(t *testing.T, c pulsar.Client, topic, name string, chk *keyorder.Checker, seen *sync.Map, errs chan<- error) *ksMember {
	t.Helper()
	cons, err := c.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "ks", Type: pulsar.KeyShared,
		Name: name, SubscriptionInitialPosition: pulsar.SubscriptionPositionEarliest, ReceiverQueueSize: 8,
		NackRedeliveryDelay: 20 * time.Millisecond})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	m := &ksMember{name: name, cons: cons, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		for n := 0; ; n++ {
			msg, err := cons.Receive(ctx)
			if err != nil {
				return
			}
			id := messageid.LastChunk(msg.ID()) // a chunked message by its last chunk
			kid := keyorder.ID{Ledger: id.LedgerID(), Entry: id.EntryID(), Batch: id.BatchIdx()}
			if err := chk.Received(name, msg.Key(), kid); err != nil {
				errs <- err
			}
			seen.Store(string(msg.Payload()[:min(len(msg.Payload()), 32)]), true)
			if n%7 == 3 {
				// Give some back: the broker redelivers them, in order.
				if err := chk.Released(name, kid); err != nil {
					errs <- err
				}
				cons.Nack(msg)
				continue
			}
			if err := chk.Acked(name, kid); err != nil {
				errs <- err
			}
			if err := cons.Ack(msg); err != nil {
				errs <- err
			}
		}
	}()
	return m
}

func (m *ksMember) leave(t *testing.T, chk *keyorder.Checker) {
	m.cancel()
	<-m.done
	require.NoError(t, chk.Left(m.name))
	m.cons.Close()
}

// TestSDKKeySharedPassesOrderingChecker: this SDK's Key_Shared consumers
// join and leave (and nack some messages) while the official producer
// publishes keyed messages, some of them chunked; the delivery log passes
// the stub's ordering checker and every message is acknowledged.
func TestSDKKeySharedPassesOrderingChecker(t *testing.T) {
	b := startStub(t, brokerstub.Options{MaxMessageSize: 64 << 10})
	topic := newTopic(t)
	oc := officialClient(t, b.URL())
	prod, err := oc.CreateProducer(official.ProducerOptions{Topic: topic, EnableChunking: true, DisableBatching: true})
	require.NoError(t, err)
	defer prod.Close()
	sdk, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL(), Logger: sdkLogger()})
	require.NoError(t, err)
	defer sdk.Close()

	var chk keyorder.Checker
	var seen sync.Map
	errs := make(chan error, 1000)
	var last official.MessageID
	send := func(from, to int) {
		for i := from; i < to; i++ {
			payload := fmt.Appendf(nil, "m-%04d", i)
			if i%25 == 0 {
				payload = append(payload, randomBytes(t, 100<<10)...) // chunked
			}
			id, err := prod.Send(ctxT(t), &official.ProducerMessage{Payload: payload, Key: fmt.Sprintf("key-%d", i%17)})
			require.NoError(t, err)
			last = id
		}
	}
	members := []*ksMember{joinKS(t, sdk, topic, "c1", &chk, &seen, errs), joinKS(t, sdk, topic, "c2", &chk, &seen, errs)}
	send(0, 100)
	members = append(members, joinKS(t, sdk, topic, "c3", &chk, &seen, errs))
	send(100, 200)
	members[0].leave(t, &chk)
	send(200, 300)
	members = append(members, joinKS(t, sdk, topic, "c4", &chk, &seen, errs))
	members[1].leave(t, &chk)
	send(300, 400)

	require.Eventually(t, func() bool {
		cur, _, err := b.Cursor(topic, "ks")
		return err == nil && cur.MarkDelete.Entry == last.EntryID() && len(cur.Ranges) == 0
	}, 30*time.Second, 10*time.Millisecond, "everything acknowledged")
	for _, m := range members[2:] {
		m.leave(t, &chk)
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.NoError(t, chk.Err())
	n := 0
	seen.Range(func(_, _ any) bool { n++; return true })
	require.Equal(t, 400, n, "distinct messages received")
}
