package pulsar

import (
	"fmt"
	"testing"
)

// plainCounter counts without synchronization, as the official
// TestProducerWithInterceptors's interceptor does.
type plainCounter struct{ sent, acked int }

func (x *plainCounter) BeforeSend(Producer, *ProducerMessage) { x.sent++ }

func (x *plainCounter) OnSendAcknowledgement(Producer, *ProducerMessage, MessageID) { x.acked++ }

// TestInterceptorAckComesBeforeLaterMessages: a message received from the
// connection that carried its send receipt comes after the interceptors'
// OnSendAcknowledgement, as with the official client (which runs them on
// the connection's reader), so an application may read what they wrote
// once it received the message. -race is the check: the counters are
// unsynchronized (the official TestProducerWithInterceptors reads them so).
func TestInterceptorAckComesBeforeLaterMessages(t *testing.T) {
	v := newCSEnv(t)
	topic := csTopic()
	c := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	for round := range 20 {
		count := &plainCounter{}
		p, err := v.c.CreateProducer(ProducerOptions{Topic: topic, Interceptors: ProducerInterceptors{count}})
		if err != nil {
			t.Fatal(err)
		}
		const n = 10
		for i := range n {
			msg := &ProducerMessage{Payload: fmt.Appendf(nil, "%d-%d", round, i)}
			if i%2 == 0 {
				if _, err := p.Send(csCtx(t), msg); err != nil {
					t.Fatal(err)
				}
				continue
			}
			p.SendAsync(csCtx(t), msg, func(_ MessageID, _ *ProducerMessage, err error) {
				if err != nil {
					t.Error(err)
				}
			})
		}
		for range n {
			m, err := c.Receive(csCtx(t))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Ack(m); err != nil {
				t.Fatal(err)
			}
		}
		if count.sent != n || count.acked != n {
			t.Fatalf("round %d: after receiving every message: %d sent, %d acknowledged", round, count.sent, count.acked)
		}
		p.Close()
	}
}
