package pulsar

import (
	"context"
	"log/slog"
	"maps"
	"sync"

	"github.com/pulsargo/sdk/internal/consumer"
	"github.com/pulsargo/sdk/internal/frameq"
)

// Properties the dead-letter router adds to a moved message, as Pulsar's
// clients name them.
const (
	// PropertyRealTopic is the topic (partition) the message came from.
	PropertyRealTopic = "REAL_TOPIC"
	// PropertyOriginMessageID is the message's id on that topic.
	PropertyOriginMessageID = "ORIGIN_MESSAGE_ID"
)

// dlqRouter moves messages delivered too often to the dead-letter topic,
// in its own goroutine (the engines only hand them over). Its producers
// chunk, so a message of any size can be moved.
type dlqRouter struct {
	c      *client
	policy DLQPolicy
	sub    string
	log    *slog.Logger
	q      *frameq.Queue[dlqItem]
	done   chan struct{}
	wg     sync.WaitGroup

	producers map[string]Producer // by dead-letter topic; owned by run
}

type dlqItem struct {
	m    *consumer.Message
	e    *consumerEngine
	base string
}

func newDLQRouter(c *client, policy DLQPolicy, sub string) *dlqRouter {
	r := &dlqRouter{c: c, policy: policy, sub: sub, log: c.log.With("dlq", policy.DeadLetterTopic),
		q: frameq.New[dlqItem](), done: make(chan struct{}), producers: map[string]Producer{}}
	r.wg.Add(1)
	go r.run()
	return r
}

// divert is the engine's Divert hook for one partition: it takes messages
// redelivered MaxDeliveries times or more.
func (r *dlqRouter) divert(t partitionTarget, engine func() *consumerEngine) func(*consumer.Message) bool {
	return func(m *consumer.Message) bool {
		if m.RedeliveryCount < r.policy.MaxDeliveries {
			return false
		}
		return r.q.Push(dlqItem{m: m, e: engine(), base: t.base})
	}
}

func (r *dlqRouter) run() {
	defer r.wg.Done()
	for {
		select {
		case <-r.done:
			return
		case <-r.q.Ready():
		}
		for _, it := range r.q.Take() {
			r.move(it)
		}
	}
}

// move publishes a message on the dead-letter topic and acknowledges it;
// on failure the message is negatively acknowledged, to be tried again.
func (r *dlqRouter) move(it dlqItem) {
	topic := r.policy.DeadLetterTopic
	if topic == "" {
		topic = it.base + "-" + r.sub + "-DLQ"
	}
	p, err := r.producer(topic)
	if err == nil {
		props := maps.Clone(it.m.Properties())
		if props == nil {
			props = map[string]string{}
		}
		props[PropertyRealTopic] = it.m.Topic
		props[PropertyOriginMessageID] = it.m.ID.String()
		ctx, cancel := r.c.opContext()
		_, err = p.Send(ctx, &ProducerMessage{
			Payload: it.m.Payload, Key: it.m.Key(), OrderingKey: it.m.OrderingKey(), Properties: props,
			EventTime: fromMillis(it.m.EventTimeMillis()),
		})
		cancel()
	}
	if err != nil {
		r.log.Warn("moving a message to the dead-letter topic failed; it will be redelivered", "id", it.m.ID, "err", err)
		it.e.Nack(it.m.ID)
		return
	}
	if err := it.e.Ack(context.Background(), it.m.ID); err != nil {
		r.log.Warn("ack of a message moved to the dead-letter topic", "id", it.m.ID, "err", err)
	}
}

func (r *dlqRouter) producer(topic string) (Producer, error) {
	if p := r.producers[topic]; p != nil {
		return p, nil
	}
	p, err := r.c.CreateProducer(ProducerOptions{Topic: topic, EnableChunking: true, DisableBatching: true})
	if err != nil {
		return nil, err
	}
	r.producers[topic] = p
	return p, nil
}

func (r *dlqRouter) close() {
	select {
	case <-r.done:
		return
	default:
		close(r.done)
	}
	r.wg.Wait()
	r.q.Close()
	for _, p := range r.producers {
		p.Close()
	}
}
