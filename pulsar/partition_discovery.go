package pulsar

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/pulsargo/sdk/internal/consumer"
	"github.com/pulsargo/sdk/internal/producer"
	"github.com/pulsargo/sdk/internal/topicname"
)

// defaultAutoDiscoveryPeriod is the official client's default for
// ConsumerOptions.AutoDiscoveryPeriod and
// ProducerOptions.PartitionsAutoDiscoveryInterval.
const defaultAutoDiscoveryPeriod = time.Minute

// engineSet is a consumer's engines, one per partition consumed, by topic
// as subscribed: discovery adds partitions and (pattern consumers) topics
// while the consumer runs, so every reader goes through its lock. list is
// copied on write, so that all() hands it out without a copy.
type engineSet struct {
	mu      sync.RWMutex
	list    []*consumerEngine
	byName  map[string]*consumerEngine // partition (or topic) full name -> engine
	byTopic map[string][]*consumerEngine
	parts   map[string]int // topic as subscribed -> partitions consumed, 0 for none
}

// all returns the engines, in the order they were added; the caller must
// not modify the slice.
func (s *engineSet) all() []*consumerEngine {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.list
}

// named returns the engine of a partition or topic full name, or nil.
func (s *engineSet) named(full string) *consumerEngine {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.byName[full]
}

// topics returns the topics subscribed, with their partition counts.
func (s *engineSet) topics() map[string]int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(map[string]int, len(s.parts))
	for t, n := range s.parts {
		out[t] = n
	}
	return out
}

// add records engines started for topic, which now has n partitions
// consumed (0: a topic without partitions).
func (s *engineSet) add(topic string, n int, es []*consumerEngine) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byName == nil {
		s.byName, s.byTopic, s.parts = map[string]*consumerEngine{}, map[string][]*consumerEngine{}, map[string]int{}
	}
	s.list = append(slices.Clip(s.list), es...)
	for _, e := range es {
		s.byName[e.Topic()] = e
	}
	s.byTopic[topic] = append(s.byTopic[topic], es...)
	s.parts[topic] = n
}

// remove drops topic and returns its engines.
func (s *engineSet) remove(topic string) []*consumerEngine {
	s.mu.Lock()
	defer s.mu.Unlock()
	es := s.byTopic[topic]
	delete(s.byTopic, topic)
	delete(s.parts, topic)
	s.list = slices.DeleteFunc(slices.Clone(s.list), func(e *consumerEngine) bool { return slices.Contains(es, e) })
	for _, e := range es {
		delete(s.byName, e.Topic())
	}
	return es
}

// subscribedTopic is a topic to consume and its partitions.
type subscribedTopic struct {
	name    string // full name, as subscribed
	n       int    // partitions, 0 for a topic without (or a partition's own name)
	targets []partitionTarget
}

// resolveTopic looks up topic's partitions and returns the targets from
// partition `from` on (all of a topic without partitions).
func (c *client) resolveTopic(ctx context.Context, topic string, from int) (subscribedTopic, error) {
	name, err := topicname.Parse(topic)
	if err != nil {
		return subscribedTopic{}, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	names, err := c.partitions(ctx, name.Full)
	if err != nil {
		return subscribedTopic{}, err
	}
	st := subscribedTopic{name: name.Full}
	if len(names) > 1 || names[0] != name.Full {
		st.n = len(names)
	}
	for _, n := range names[min(from, len(names)):] {
		p, err := topicname.Parse(n)
		if err != nil {
			return subscribedTopic{}, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
		}
		st.targets = append(st.targets, partitionTarget{name: p.Full, base: p.Base, partition: int32(p.Partition)})
	}
	return st, nil
}

// addTopics subscribes to topics (every partition), all or none: on an
// error the engines started are closed.
func (cs *consumerImpl) addTopics(ctx context.Context, topics []string) error {
	resolved := make([]subscribedTopic, 0, len(topics))
	var targets []partitionTarget
	for _, t := range topics {
		st, err := cs.c.resolveTopic(ctx, t, 0)
		if err != nil {
			return err
		}
		resolved = append(resolved, st)
		targets = append(targets, st.targets...)
	}
	if err := zeroQueueTargets(cs.opts, topics, targets); err != nil {
		return err
	}
	es, err := cs.startEngines(ctx, targets)
	if err != nil {
		return err
	}
	for _, st := range resolved {
		cs.set.add(st.name, st.n, es[:len(st.targets)])
		es = es[len(st.targets):]
	}
	return nil
}

// growTopic subscribes to the partitions topic gained since it had have.
func (cs *consumerImpl) growTopic(ctx context.Context, topic string, have int) error {
	st, err := cs.c.resolveTopic(ctx, topic, have)
	if err != nil || st.n <= have {
		return err
	}
	es, err := cs.startEngines(ctx, st.targets)
	if err != nil {
		return err
	}
	cs.c.log.Info("consuming new partitions", "topic", topic, "old_partitions", have, "new_partitions", st.n)
	cs.set.add(topic, st.n, es)
	return nil
}

// startEngines creates and starts an engine per target, concurrently; on
// an error it closes them all.
func (cs *consumerImpl) startEngines(ctx context.Context, targets []partitionTarget) ([]*consumerEngine, error) {
	es := make([]*consumerEngine, len(targets))
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		var e *consumerEngine
		// Each message names the engine that delivered it: the application
		// (or an interceptor's BeforeConsume) may acknowledge it before
		// Subscribe has added the engine to cs.set.
		wrap := func(m *consumer.Message) ConsumerMessage {
			cm := cs.wrap(m)
			if m, ok := cm.Message.(*message); ok {
				m.from, m.engine = cs, e
			}
			return cm
		}
		o := cs.c.consumerEngineOptions(t, cs.out, wrap)
		applyConsumerOptions(&o, cs.opts)
		if cs.hold {
			o.Receivers, o.Parked = &cs.receivers, &cs.parked
		}
		o.Outbox = cs.outbox
		o.Name = cs.name
		o.Schema = cs.schema.protoSchema()
		// A pattern consumer does not create again a topic deleted under
		// it: it drops the topic (as the official client).
		// (The topics it was given, such as its retry letter topic, it creates.)
		o.NoTopicCreation = cs.opts.Topic == "" && !slices.ContainsFunc(cs.opts.Topics, func(n string) bool { return topicFull(n) == t.base })
		if !cs.single {
			o.RecentIDs = recentIDs
		}
		cs.hookEngine(&o, t)
		if cs.letters != nil {
			o.Divert = cs.letters.divert(t, func() *consumerEngine { return e })
		}
		e = consumer.New(o)
		es[i] = e
		wg.Go(func() { errs[i] = e.Start(ctx) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, e := range es {
			wg.Go(e.Close)
		}
		wg.Wait()
		return nil, err
	}
	return es, nil
}

// wrap makes an engine's message this consumer's.
func (cs *consumerImpl) wrap(m *consumer.Message) ConsumerMessage {
	return ConsumerMessage{Consumer: cs.self, Message: newMessage(m, cs.schema)}
}

// growPartitions asks for the partition count of every partitioned topic
// the consumer follows and subscribes to the partitions added.
func (cs *consumerImpl) growPartitions(ctx context.Context) {
	for topic, n := range cs.set.topics() {
		if n == 0 {
			continue // a topic without partitions cannot gain any
		}
		octx, cancel := context.WithTimeout(ctx, cs.c.opts.OperationTimeout)
		err := cs.growTopic(octx, topic, n)
		cancel()
		if err != nil && ctx.Err() == nil {
			cs.c.log.Warn("partition discovery failed", "topic", topic, "err", err)
		}
	}
}

// discovery is a background loop of a consumer or producer: stop ends it
// and waits for it.
type discovery struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// startDiscovery runs loop(ctx) in a goroutine until stop.
func startDiscovery(loop func(ctx context.Context)) *discovery {
	ctx, cancel := context.WithCancel(context.Background())
	d := &discovery{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(d.done)
		loop(ctx)
	}()
	return d
}

// stop ends the loop and waits for it; a nil discovery is stopped.
func (d *discovery) stop() {
	if d == nil {
		return
	}
	d.cancel()
	<-d.done
}

// period returns d, or the default discovery period when d is not positive.
func period(d time.Duration) time.Duration {
	if d <= 0 {
		return defaultAutoDiscoveryPeriod
	}
	return d
}

// followPartitions polls the partition counts every AutoDiscoveryPeriod,
// when the consumer has a partitioned topic (a pattern consumer runs its
// own loop, which does this too).
func (cs *consumerImpl) followPartitions() {
	partitioned := false
	for _, n := range cs.set.topics() {
		partitioned = partitioned || n > 0
	}
	if !partitioned {
		return
	}
	every := period(cs.opts.AutoDiscoveryPeriod)
	cs.disc = startDiscovery(func(ctx context.Context) {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				cs.growPartitions(ctx)
			}
		}
	})
}

// partitions returns the producer's partition engines, by index.
func (p *partitionedProducer) partitions() []*producer.Producer {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.parts
}

// followPartitions polls the topic's partition count every
// PartitionsAutoDiscoveryInterval and starts producing to the partitions
// added; a failed poll or creation leaves the producer as it was (retried
// at the next poll), as the official client's.
func (p *partitionedProducer) followPartitions() {
	every := period(p.opts.PartitionsAutoDiscoveryInterval)
	p.disc = startDiscovery(func(ctx context.Context) {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				octx, cancel := context.WithTimeout(ctx, p.c.opts.OperationTimeout)
				if err := p.grow(octx); err != nil && ctx.Err() == nil {
					p.c.log.Warn("partition discovery failed", "topic", p.topic, "err", err)
				}
				cancel()
			}
		}
	})
}

// grow creates the engines of the partitions added since the last poll.
func (p *partitionedProducer) grow(ctx context.Context) error {
	names, err := p.c.partitions(ctx, p.topic)
	if err != nil {
		return err
	}
	have := len(p.partitions())
	if len(names) <= have {
		return nil
	}
	added := make([]*producer.Producer, len(names)-have)
	errs := make([]error, len(added))
	var wg sync.WaitGroup
	for i := range added {
		wg.Go(func() {
			added[i], errs[i] = producer.New(ctx, p.engineOptions(names[have+i], int32(have+i)))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, pp := range added {
			if pp != nil {
				wg.Go(func() { pp.Close(ctx) })
			}
		}
		wg.Wait()
		return producerErr("create producers on new partitions of "+p.topic, err)
	}
	p.mu.Lock()
	// A new slice: senders may hold the old one.
	p.parts = append(slices.Clip(p.parts), added...)
	p.mu.Unlock()
	p.c.log.Info("producing to new partitions", "topic", p.topic, "old_partitions", have, "new_partitions", len(names))
	return nil
}
