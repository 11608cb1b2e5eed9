package consumer

import (
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/pulsargo/sdk/messageid"
)

// outboxEngine starts an engine on a new topic holding n messages "m<i>",
// lending to a new outbox with a receiver queue of queue messages.
func outboxEngine(t *testing.T, n, queue int) (*Engine[*Message], *Outbox[*Message], chan *Message) {
	t.Helper()
	v := newEnv(t)
	topic := newTopic(t)
	p := v.producer(topic)
	for i := range n {
		if _, err := p.Send(ctxT(t), fmt.Appendf(nil, "m%d", i), ""); err != nil {
			t.Fatal(err)
		}
	}
	ob := NewOutbox[*Message]()
	e, out := v.engine(topic, "s", func(o *Options[*Message]) {
		o.Outbox, o.ReceiverQueueSize = ob, queue
	})
	return e, ob, out
}

// take takes n messages from ob and checks they are m<from>...
func take(t *testing.T, ob *Outbox[*Message], from, n int) {
	t.Helper()
	for i := range n {
		m, ok := ob.Take()
		if !ok {
			t.Fatalf("take %d: the outbox is empty", i)
		}
		if got, want := string(m.Payload), fmt.Sprintf("m%d", from+i); got != want {
			t.Fatalf("took %q, want %q", got, want)
		}
	}
}

// TestOutboxPermitsWhenTaken: a message lent to the outbox keeps its flow
// permit until a receiver takes it, so the outbox holds no more than the
// receiver queue: lending does not let the broker send more.
func TestOutboxPermitsWhenTaken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, ob, out := outboxEngine(t, 30, 10)
		synctest.Wait()
		if got := ob.Len(); got != 10 {
			t.Fatalf("outbox holds %d, want the receiver queue's 10", got)
		}
		take(t, ob, 0, 4)
		synctest.Wait()
		if got := ob.Len(); got != 6 {
			t.Fatalf("after 4 taken the outbox holds %d, want 6 (FLOW goes once half the queue is taken)", got)
		}
		take(t, ob, 4, 1)
		synctest.Wait()
		if got := ob.Len(); got != 10 {
			t.Fatalf("after 5 taken the outbox holds %d, want 10 (5 permits given back)", got)
		}
		take(t, ob, 5, 10)
		select {
		case m := <-out:
			t.Fatalf("message %q on Out while the outbox is open", m.Payload)
		default:
		}
	})
}

// TestOutboxRecalledAreForgotten: seeks with nobody receiving recall what
// was lent each time; the outbox forgets it instead of growing by a queue
// per seek, and what comes after the last seek is the topic from its start.
func TestOutboxRecalledAreForgotten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const queue = 100
		e, ob, _ := outboxEngine(t, 3*queue, queue)
		synctest.Wait()
		for range 10 {
			if err := e.Seek(ctxT(t), messageid.Earliest()); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			if got := ob.Len(); got > 2*queue+compactAfter {
				t.Fatalf("outbox holds %d after a seek, want at most %d", got, 2*queue+compactAfter)
			}
		}
		take(t, ob, 0, queue)
	})
}

// TestOutboxCloseDeliversOnOut: once the outbox is closed, the engine
// takes back what it lent and delivers it, in order, on Out.
func TestOutboxCloseDeliversOnOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, ob, out := outboxEngine(t, 20, 1000)
		synctest.Wait()
		take(t, ob, 0, 5)
		ob.Close()
		for i, m := range recvN(t, out, 15) {
			if got, want := string(m.Payload), fmt.Sprintf("m%d", 5+i); got != want {
				t.Fatalf("Out gave %q, want %q", got, want)
			}
		}
		if _, ok := ob.Take(); ok {
			t.Fatal("Take found a message in a closed outbox")
		}
	})
}

// TestQueuedAcksBeforeClose: acks queued for the loop (not waited for)
// reach the broker before the consumer closes, in one Close right after
// them, as when each was an operation on the loop.
func TestQueuedAcksBeforeClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		for i := range 10 {
			if _, err := p.Send(ctxT(t), fmt.Appendf(nil, "m%d", i), ""); err != nil {
				t.Fatal(err)
			}
		}
		ob := NewOutbox[*Message]()
		e, _ := v.engine(topic, "s", func(o *Options[*Message]) { o.Outbox = ob })
		synctest.Wait()
		var last messageid.MessageID
		for range 10 {
			m, ok := ob.Take()
			if !ok {
				t.Fatal("the outbox is empty")
			}
			if err := e.Ack(ctxT(t), m.ID); err != nil {
				t.Fatal(err)
			}
			last = m.ID
		}
		e.Close()
		cur, _, err := v.b.Cursor(topic, "s")
		if err != nil || !ackedThrough(last)(cur) {
			t.Fatalf("cursor after Close: %+v (err %v), want everything through %v acknowledged", cur, err, last)
		}
	})
}
