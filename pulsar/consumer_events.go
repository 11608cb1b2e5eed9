package pulsar

import (
	"sync"

	"github.com/pulsargo/sdk/internal/consumer"
	"github.com/pulsargo/sdk/internal/frameq"
	"github.com/pulsargo/sdk/messageid"
)

// ConsumerEventListener is told about a Failover subscription's active
// consumer (the broker's ACTIVE_CONSUMER_CHANGE), as the official Go
// client's interface of the same name. topicName is the partition's full
// name; partition is its index (0 for a topic without partitions, as the
// official client reports it). Calls come in the order the broker sent
// them, on a goroutine of the consumer's own.
type ConsumerEventListener interface {
	// BecameActive: this consumer now receives the partition's messages.
	BecameActive(consumer Consumer, topicName string, partition int32)
	// BecameInactive: another consumer receives them.
	BecameInactive(consumer Consumer, topicName string, partition int32)
}

// callbacks runs the application's listener and interceptor calls that
// the engines raise, in order, on one goroutine, so that they never block
// an engine and may call the consumer back.
type callbacks struct {
	q    *frameq.Queue[func()]
	done chan struct{}
	wg   sync.WaitGroup
}

func newCallbacks() *callbacks {
	cb := &callbacks{q: frameq.New[func()](), done: make(chan struct{})}
	cb.wg.Go(func() {
		for {
			select {
			case <-cb.done:
				return
			case <-cb.q.Ready():
			}
			for _, f := range cb.q.Take() {
				f()
			}
		}
	})
	return cb
}

// run queues f; it is dropped once the consumer is closed.
func (cb *callbacks) run(f func()) { cb.q.Push(f) }

func (cb *callbacks) close() {
	cb.q.Close()
	close(cb.done)
	cb.wg.Wait()
}

// hookEngine sets the engine options that raise the consumer's listener
// and interceptor calls.
func (cs *consumerImpl) hookEngine(o *consumer.Options[ConsumerMessage], t partitionTarget) {
	if cs.cb == nil {
		return
	}
	if l := cs.opts.EventListener; l != nil {
		partition := max(t.partition, 0)
		o.ActiveChanged = func(active bool) {
			cs.cb.run(func() {
				if active {
					l.BecameActive(cs.self, t.name, partition)
				} else {
					l.BecameInactive(cs.self, t.name, partition)
				}
			})
		}
	}
	if x := cs.opts.Interceptors; len(x) > 0 {
		o.NackSent = func(ids []messageid.ID) {
			out := make([]MessageID, len(ids))
			for i, id := range ids {
				out[i] = id
			}
			cs.cb.run(func() { x.OnNegativeAcksSend(cs.self, out) })
		}
	}
}

// relay passes messages from the engines to the application's channel
// through the interceptors' BeforeConsume, on its own goroutine.
func (cs *consumerImpl) relay(in <-chan ConsumerMessage) {
	defer cs.relayWG.Done()
	for {
		select {
		case m := <-in:
			cs.opts.Interceptors.BeforeConsume(m)
			select {
			case cs.ch <- m:
			case <-cs.closed:
				return
			}
		case <-cs.closed:
			return
		}
	}
}
