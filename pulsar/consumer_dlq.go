package pulsar

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"maps"
	"sync"

	"github.com/pulsargo/sdk/internal/consumer"
	"github.com/pulsargo/sdk/internal/frameq"
)

// PropertyRealTopic is SysPropertyRealTopic under the name pulsargo had
// first.
const PropertyRealTopic = SysPropertyRealTopic

// letterRouter moves messages to the dead-letter topic (delivered too
// often, or reconsumed too often) and to the retry letter topic
// (ReconsumeLater), in its own goroutine (the engines and ReconsumeLater
// only hand them over), and acknowledges each once its copy is stored.
// Its producers chunk, so a message of any size can be moved.
type letterRouter struct {
	c        *client
	policy   DLQPolicy
	sub      string
	consumer string          // the consumer's name, for the dead-letter producer's
	source   string          // the topic as the application named it, for the same
	acked    func(MessageID) // told of each message acknowledged once moved
	log      *slog.Logger
	q        *frameq.Queue[letter]
	done     chan struct{}
	wg       sync.WaitGroup

	producers map[string]Producer // by topic; owned by run
}

// letter is a message to move: to the retry letter topic when retry is
// set, else to the dead-letter topic.
type letter struct {
	m     *consumer.Message
	e     *consumerEngine
	base  string            // the message's topic without partition suffix
	props map[string]string // the properties to publish with
	retry *RetryMessage     // the retry letter to send, nil for the dead-letter topic
}

func newLetterRouter(c *client, policy DLQPolicy, sub, consumerName, source string, acked func(MessageID)) *letterRouter {
	r := &letterRouter{c: c, policy: policy, sub: sub, consumer: consumerName, source: source, acked: acked,
		log: c.log.With("dlq", policy.DeadLetterTopic, "rlq", policy.RetryLetterTopic),
		q:   frameq.New[letter](), done: make(chan struct{}), producers: map[string]Producer{}}
	r.wg.Go(r.run)
	return r
}

// divert is the engine's Divert hook for one partition: it takes messages
// redelivered MaxDeliveries times or more, with the properties the
// official client adds (the message's own win over them).
func (r *letterRouter) divert(t partitionTarget, engine func() *consumerEngine) func(*consumer.Message) bool {
	return func(m *consumer.Message) bool {
		if m.RedeliveryCount < r.policy.MaxDeliveries {
			return false
		}
		props := map[string]string{
			SysPropertyRealTopic:       m.Topic,
			SysPropertyOriginMessageID: m.ID.String(),
			PropertyOriginMessageID:    m.ID.String(),
		}
		maps.Copy(props, m.Properties())
		return r.q.Push(letter{m: m, e: engine(), base: t.base, props: props})
	}
}

func (r *letterRouter) run() {
	for {
		select {
		case <-r.done:
			return
		case <-r.q.Ready():
		}
		for _, l := range r.q.Take() {
			r.move(l)
		}
	}
}

// move publishes a letter and acknowledges its message once the broker
// stored it; on failure the message is negatively acknowledged, to be
// tried again.
func (r *letterRouter) move(l letter) {
	var topic string
	var msg *ProducerMessage
	if l.retry != nil {
		topic, msg = r.policy.RetryLetterTopic, &l.retry.producerMsg
	} else {
		topic = r.policy.DeadLetterTopic
		if topic == "" {
			topic = l.base + "-" + r.sub + DlqTopicSuffix
		}
		msg = &ProducerMessage{Payload: l.m.Payload, Key: l.m.Key(), OrderingKey: l.m.OrderingKey(),
			Properties: l.props, EventTime: fromMillis(l.m.EventTimeMillis()), ReplicationClusters: l.m.Meta.GetReplicateTo()}
	}
	p, err := r.producer(topic, l.retry != nil)
	if err != nil {
		r.failed(l, topic, err)
		return
	}
	ctx, cancel := r.c.opContext()
	p.SendAsync(ctx, msg, func(_ MessageID, _ *ProducerMessage, err error) {
		cancel()
		if err != nil {
			r.failed(l, topic, err)
			return
		}
		if err := l.e.Ack(context.Background(), l.m.ID); err != nil {
			r.log.Warn("ack of a message moved to "+topic, "id", l.m.ID, "err", err)
			return
		}
		r.acked(l.m.ID)
	})
}

func (r *letterRouter) failed(l letter, topic string, err error) {
	r.log.Warn("moving a message to "+topic+" failed; it will be redelivered", "id", l.m.ID, "err", err)
	l.e.Nack(l.m.ID)
}

// producer returns the producer of a letter topic, created with
// DLQPolicy.ProducerOptions as the official client does (LZ4 unless a
// codec is chosen; the dead-letter producer named and given the initial
// subscription), with chunking on.
func (r *letterRouter) producer(topic string, retry bool) (Producer, error) {
	if p := r.producers[topic]; p != nil {
		return p, nil
	}
	o := r.policy.ProducerOptions
	o.Topic = topic
	o.EnableChunking = true
	if o.CompressionType == NoCompression {
		o.CompressionType = LZ4
	}
	if !retry {
		o.Name = r.policy.DeadLetterTopicProducerName
		if o.Name == "" {
			o.Name = fmt.Sprintf("%s-%s-%s-%s%s", r.source, r.sub, r.consumer, randomLetters(5), DlqTopicSuffix)
		}
		o.initialSubscriptionName = r.policy.InitialSubscriptionName
	}
	p, err := r.c.CreateProducer(o)
	if err != nil {
		return nil, err
	}
	r.producers[topic] = p
	return p, nil
}

// randomLetters returns n random lowercase letters, as the official
// client's generated names have.
func randomLetters(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = 'a' + b[i]%26
	}
	return string(b)
}

// close stops taking letters and closes the producers, which flushes what
// they still send (and so acknowledges it).
func (r *letterRouter) close() {
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
