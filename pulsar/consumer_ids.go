package pulsar

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/pulsargo/sdk/internal/api"
)

// TopicMessageID is a message id with the topic (partition) it belongs to,
// as Consumer.GetLastMessageIDs returns them.
type TopicMessageID interface {
	MessageID
	// Topic returns the topic's (the partition's) full name.
	Topic() string
}

// topicMessageID is the TopicMessageID implementation.
type topicMessageID struct {
	MessageID
	topic string
}

func (t topicMessageID) Topic() string { return t.topic }

// AckError is the error of Consumer.AckIDList: the ids that failed to be
// acknowledged, each with its error. As the official client's.
type AckError map[MessageID]error

// Error lists the failed ids by error.
func (e AckError) Error() string {
	byErr := map[string][]MessageID{}
	for id, err := range e {
		byErr[err.Error()] = append(byErr[err.Error()], id)
	}
	var b strings.Builder
	for err, ids := range byErr {
		fmt.Fprintf(&b, "error: %s, failed message IDs: %v\n", err, ids)
	}
	return b.String()
}

// AckIDList acknowledges every id, concurrently per partition; the ids that
// fail are returned in an AckError, those that name none of this
// consumer's partitions are skipped with a warning.
func (cs *consumerImpl) AckIDList(ids []MessageID) error {
	if cs.isClosed() {
		// Every id fails, as on the official client's closed consumer.
		failed := AckError{}
		for _, id := range ids {
			failed[id] = api.ErrAckOnClosedConsumer
		}
		if len(failed) == 0 {
			return nil
		}
		return failed
	}
	byEngine := map[*consumerEngine][]MessageID{}
	for _, id := range ids {
		own, err := ownID(id)
		if err == nil {
			var e *consumerEngine
			if e, err = cs.engineFor(own); err == nil {
				byEngine[e] = append(byEngine[e], id)
				continue
			}
		}
		cs.c.log.Warn("AckIDList: skipping an id of no partition of this consumer", "id", id, "err", err)
	}
	var (
		mu     sync.Mutex
		failed = AckError{}
		wg     sync.WaitGroup
	)
	for e, ids := range byEngine {
		wg.Go(func() {
			for _, id := range ids {
				own, _ := ownID(id)
				if err := cs.ackOn(e, own); err != nil {
					mu.Lock()
					failed[id] = err
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if len(failed) == 0 {
		return nil
	}
	return failed
}

// ackOn acknowledges id on e, or fails at once when the consumer is
// closed.
func (cs *consumerImpl) ackOn(e *consumerEngine, id MessageID) error {
	if cs.isClosed() {
		return api.ErrAckOnClosedConsumer
	}
	return consumerErr("ack", e.Ack(context.Background(), id))
}

// isClosed reports whether Close has begun.
func (cs *consumerImpl) isClosed() bool {
	select {
	case <-cs.closed:
		return true
	default:
		return false
	}
}

// GetLastMessageIDs asks the broker for the last message id of every
// partition, in the consumer's order of topics and partitions.
func (cs *consumerImpl) GetLastMessageIDs() ([]TopicMessageID, error) {
	ctx, cancel := cs.c.opContext()
	defer cancel()
	engines := cs.set.all()
	out := make([]TopicMessageID, len(engines))
	err := cs.forAll(func(e *consumerEngine) error {
		id, err := e.GetLastMessageID(ctx)
		if err != nil {
			return publicErr(fmt.Errorf("last message id of %s: %w", e.Topic(), err))
		}
		for i, x := range engines {
			if x == e {
				out[i] = topicMessageID{MessageID: id, topic: e.Topic()}
			}
		}
		return nil
	}, "get last message ids")
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UnsubscribeForce deletes the subscription, disconnecting the other
// consumers of it, and closes the consumer.
func (cs *consumerImpl) UnsubscribeForce() error {
	ctx, cancel := cs.c.opContext()
	defer cancel()
	err := cs.forAll(func(e *consumerEngine) error { return e.UnsubscribeForce(ctx) }, "unsubscribe force")
	if err == nil {
		cs.Close()
	}
	return err
}
