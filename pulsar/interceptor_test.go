package pulsar

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
)

// recordingProducerInterceptor stamps every message in BeforeSend and
// records the ids OnSendAcknowledgement is given.
type recordingProducerInterceptor struct {
	mu    sync.Mutex
	sent  int
	acked []MessageID
}

func (r *recordingProducerInterceptor) BeforeSend(_ Producer, m *ProducerMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent++
	if m.Properties == nil {
		m.Properties = map[string]string{}
	}
	m.Properties["stamped"] = "yes"
}

func (r *recordingProducerInterceptor) OnSendAcknowledgement(_ Producer, _ *ProducerMessage, id MessageID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.acked = append(r.acked, id)
}

// TestProducerInterceptors: BeforeSend runs before the message is sent (its
// change is on the wire) for Send and SendAsync, and
// OnSendAcknowledgement gets the id the broker assigned; a send that fails
// (here: times out) is not acknowledged.
func TestProducerInterceptors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		rec := &recordingProducerInterceptor{}
		p := testProducer(t, v.c, ProducerOptions{Topic: topic, SendTimeout: 2 * time.Second, Interceptors: ProducerInterceptors{rec}})
		id1, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("a")})
		if err != nil {
			t.Fatal(err)
		}
		var id2 MessageID
		done := make(chan struct{})
		p.SendAsync(csCtx(t), &ProducerMessage{Payload: []byte("b")}, func(id MessageID, _ *ProducerMessage, err error) {
			id2 = id
			if err != nil {
				t.Error(err)
			}
			close(done)
		})
		<-done
		v.b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
			return brokerstub.Action{Drop: ev.Type == brokerstub.CmdSend}
		})
		if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("lost")}); err == nil {
			t.Fatal("a dropped message was acknowledged")
		}
		v.b.Intercept(nil)
		c := v.subscribe(ConsumerOptions{Topic: topic})
		for _, m := range csRecvN(t, c, 2) {
			if m.Properties()["stamped"] != "yes" {
				t.Fatalf("message %q arrived without BeforeSend's property: %v", m.Payload(), m.Properties())
			}
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if rec.sent != 3 || len(rec.acked) != 2 || rec.acked[0] != id1 || rec.acked[1] != id2 {
			t.Fatalf("BeforeSend %d times, acknowledged %v; want 3 and [%v %v]", rec.sent, rec.acked, id1, id2)
		}
	})
}

// recordingConsumerInterceptor copies a property in BeforeConsume (and
// acks from there when ackInBefore), and records acks and nack
// redeliveries.
type recordingConsumerInterceptor struct {
	mu          sync.Mutex
	ackInBefore bool
	acked       []MessageID
	nacked      [][]MessageID
}

func (r *recordingConsumerInterceptor) BeforeConsume(m ConsumerMessage) {
	m.Properties()["seen"] = m.Properties()["n"]
	if r.ackInBefore {
		_ = m.Consumer.Ack(m.Message)
	}
}

func (r *recordingConsumerInterceptor) OnAcknowledge(_ Consumer, id MessageID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.acked = append(r.acked, id)
}

func (r *recordingConsumerInterceptor) OnNegativeAcksSend(_ Consumer, ids []MessageID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nacked = append(r.nacked, ids)
}

// TestConsumerInterceptors: BeforeConsume sees (and may change) every
// message before the application, OnAcknowledge every accepted ack, and
// OnNegativeAcksSend the entries of a nack's redelivery request when it is
// sent (after the nack delay, not at Nack).
func TestConsumerInterceptors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p := testProducer(t, v.c, ProducerOptions{Topic: topic, DisableBatching: true})
		for _, n := range []string{"1", "2", "3"} {
			if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte(n), Properties: map[string]string{"n": n}}); err != nil {
				t.Fatal(err)
			}
		}
		rec := &recordingConsumerInterceptor{}
		c := v.subscribe(ConsumerOptions{Topic: topic, Type: Shared, NackRedeliveryDelay: 2 * time.Second,
			Interceptors: ConsumerInterceptors{rec}})
		ms := csRecvN(t, c, 3)
		for _, m := range ms {
			if m.Properties()["seen"] != string(m.Payload()) {
				t.Fatalf("message %q: BeforeConsume's change missing: %v", m.Payload(), m.Properties())
			}
		}
		if err := c.Ack(ms[0]); err != nil {
			t.Fatal(err)
		}
		if err := c.AckID(ms[1].ID()); err != nil {
			t.Fatal(err)
		}
		c.Nack(ms[2])
		time.Sleep(time.Second)
		synctest.Wait()
		rec.mu.Lock()
		if len(rec.nacked) != 0 {
			t.Fatalf("OnNegativeAcksSend before the nack delay: %v", rec.nacked)
		}
		rec.mu.Unlock()
		again := csRecv(t, c)
		if string(again.Payload()) != "3" {
			t.Fatalf("redelivered %q", again.Payload())
		}
		synctest.Wait()
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if !slices.Equal(rec.acked, []MessageID{ms[0].ID(), ms[1].ID()}) {
			t.Fatalf("OnAcknowledge got %v", rec.acked)
		}
		if len(rec.nacked) != 1 || len(rec.nacked[0]) != 1 || !sameEntry(rec.nacked[0][0], ms[2].ID()) {
			t.Fatalf("OnNegativeAcksSend got %v, want [[%v]]", rec.nacked, ms[2].ID())
		}
	})
}

// TestConsumerInterceptorMayCallConsumer: an interceptor that acknowledges
// from BeforeConsume does not deadlock the consumer (it runs apart from
// the engine's goroutine).
func TestConsumerInterceptorMayCallConsumer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p := testProducer(t, v.c, ProducerOptions{Topic: topic, DisableBatching: true})
		var last MessageID
		for range 5 {
			id, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("m"), Properties: map[string]string{"n": "x"}})
			if err != nil {
				t.Fatal(err)
			}
			last = id
		}
		rec := &recordingConsumerInterceptor{ackInBefore: true}
		c := v.subscribe(ConsumerOptions{Topic: topic, Interceptors: ConsumerInterceptors{rec}})
		csRecvN(t, c, 5)
		v.waitCursor(topic, "s", allAcked(last))
	})
}

func sameEntry(a, b MessageID) bool {
	return a.LedgerID() == b.LedgerID() && a.EntryID() == b.EntryID()
}

// TestConsumerInterceptorSeesLetterAcks: a message acknowledged because
// ReconsumeLater moved it to the retry letter topic reaches OnAcknowledge,
// as the official client's AckID of it does.
func TestConsumerInterceptorSeesLetterAcks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p := testProducer(t, v.c, ProducerOptions{Topic: topic})
		if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("x"), Properties: map[string]string{"n": "1"}}); err != nil {
			t.Fatal(err)
		}
		rec := &recordingConsumerInterceptor{}
		c := v.subscribe(ConsumerOptions{Topic: topic, Type: Shared, RetryEnable: true, Interceptors: ConsumerInterceptors{rec}})
		m := csRecv(t, c)
		c.ReconsumeLater(m, time.Second)
		csRecv(t, c)
		// The letter router acknowledges the original once the retry
		// producer's receipt is in, on its own goroutine: let it finish.
		synctest.Wait()
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if len(rec.acked) != 1 || rec.acked[0] != m.ID() {
			t.Fatalf("OnAcknowledge got %v, want [%v]", rec.acked, m.ID())
		}
	})
}
