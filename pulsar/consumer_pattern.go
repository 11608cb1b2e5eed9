package pulsar

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/backoff"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/lookup"
	"github.com/pulsargo/sdk/internal/topicname"
)

// topicsPattern is a ConsumerOptions.TopicsPattern as the official Go
// client applies it: the namespace the pattern names, and a regexp matched,
// unanchored, against topic names without their partition suffix from the
// namespace on ("public/default/orders-.*" for
// "persistent://public/default/orders-.*").
type topicsPattern struct {
	ns string
	re *regexp.Regexp
}

func parseTopicsPattern(p string) (topicsPattern, error) {
	n, err := topicname.Parse(p)
	if err != nil {
		return topicsPattern{}, fmt.Errorf("%w: TopicsPattern: %w", ErrInvalidOptions, err)
	}
	re, err := regexp.Compile(n.Full[len(n.Domain)+len("://"):])
	if err != nil {
		return topicsPattern{}, fmt.Errorf("%w: TopicsPattern: %w", ErrInvalidOptions, err)
	}
	return topicsPattern{ns: n.Namespace, re: re}, nil
}

// filter returns the topics (without partition suffix) of names that
// match, sorted, each once.
func (p topicsPattern) filter(names map[string]bool) []string {
	var out []string
	for full := range names {
		n, err := topicname.Parse(full)
		if err != nil || n.Namespace != p.ns || !p.re.MatchString(n.Base) {
			continue
		}
		out = append(out, n.Base)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// patternConsumer is the state of a pattern consumer's discovery, owned by
// its discovery goroutine (after subscribePattern hands it over).
type patternConsumer struct {
	cs    *consumerImpl
	pat   topicsPattern
	names map[string]bool // the namespace's topics as last heard (partitions by name)
	hash  string          // the broker's hash of names, "" when unknown
	w     *topicWatch     // nil while not watching
}

// subscribePattern subscribes to the topics matching opts.TopicsPattern
// and starts following the namespace.
func (c *client) subscribePattern(opts ConsumerOptions, schemas *consumerSchemas) (Consumer, error) {
	pat, err := parseTopicsPattern(opts.TopicsPattern)
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.opContext()
	defer cancel()
	pc := &patternConsumer{cs: c.newConsumerImpl(opts, false, schemas, ""), pat: pat}
	if err := pc.list(ctx); err != nil {
		return nil, consumerErr("subscribe to "+opts.TopicsPattern, err)
	}
	if err := pc.cs.addTopics(ctx, pc.want()); err != nil {
		pc.cs.closeEngines()
		return nil, consumerErr("subscribe to "+opts.TopicsPattern, err)
	}
	pc.cs.disc = startDiscovery(pc.run)
	pc.cs.metrics.Add(api.MetricConsumersOpened, 1)
	if err := c.register(pc.cs); err != nil {
		pc.cs.Close()
		return nil, err
	}
	return pc.cs, nil
}

// want is the topics to consume: those of the namespace that match the
// pattern, and the topics given beside it (the retry letter topic of
// RetryEnable), as the official client's pattern consumer.
func (pc *patternConsumer) want() []string {
	out := pc.pat.filter(pc.names)
	for _, t := range pc.cs.opts.Topics {
		out = append(out, topicFull(t))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// list asks the service for the namespace's topics (with the hash of the
// list held, so that an unchanged list is not sent again).
func (pc *patternConsumer) list(ctx context.Context) error {
	ts, err := pc.cs.c.lookup.TopicsOfNamespace(ctx, pc.pat.ns, pc.hash)
	if err != nil {
		return err
	}
	if !ts.Unchanged {
		pc.setNames(ts.Names, ts.Hash)
	}
	return nil
}

func (pc *patternConsumer) setNames(names []string, hash string) {
	pc.names = make(map[string]bool, len(names))
	for _, n := range names {
		pc.names[n] = true
	}
	pc.hash = hash
}

// run is the discovery loop: topic-list watch notifications as they come
// when the broker supports them, else a poll every AutoDiscoveryPeriod;
// and every period, new partitions. A watcher lost with its connection is
// registered again with backoff (100 ms doubling to the period, at most
// 30 s), as the Java client's TopicListWatcher reconnects.
func (pc *patternConsumer) run(ctx context.Context) {
	every := period(pc.cs.opts.AutoDiscoveryPeriod)
	t := time.NewTicker(every)
	defer t.Stop()
	defer pc.unwatch()
	bo := backoff.New(100*time.Millisecond, min(every, 30*time.Second))
	var rewatch <-chan time.Time
	if pc.watch(ctx) == watchFailed {
		rewatch = time.After(bo.Next())
	}
	for {
		var notify, gone <-chan struct{}
		if pc.w != nil {
			notify, gone = pc.w.notify, pc.w.gone
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if pc.w == nil && rewatch == nil {
				pc.watch(ctx) // a broker that refused may accept now
			}
			if pc.w == nil {
				pc.poll(ctx)
			} else {
				pc.reconcile(ctx) // retries topics that failed to subscribe
			}
			pc.cs.growPartitions(ctx)
		case <-notify:
			pc.applyUpdates(ctx)
		case <-gone:
			pc.cs.c.log.Debug("topic-list watcher lost its connection", "namespace", pc.pat.ns)
			pc.w = nil
			bo.Reset()
			rewatch = time.After(bo.Next())
		case <-rewatch:
			rewatch = nil
			if pc.watch(ctx) == watchFailed {
				rewatch = time.After(bo.Next())
			}
		}
	}
}

// poll lists the namespace's topics and follows the changes.
func (pc *patternConsumer) poll(ctx context.Context) {
	octx, cancel := context.WithTimeout(ctx, pc.cs.c.opts.OperationTimeout)
	defer cancel()
	if err := pc.list(octx); err != nil {
		if ctx.Err() == nil {
			pc.cs.c.log.Warn("topic discovery failed", "namespace", pc.pat.ns, "err", err)
		}
		return
	}
	pc.reconcile(ctx)
}

// reconcile subscribes to the matching topics not yet subscribed and drops
// the topics that no longer match (or exist), unsubscribing them as the
// official client does.
func (pc *patternConsumer) reconcile(ctx context.Context) {
	want := pc.want()
	have := pc.cs.set.topics()
	for _, t := range want {
		if _, ok := have[t]; ok {
			continue
		}
		octx, cancel := context.WithTimeout(ctx, pc.cs.c.opts.OperationTimeout)
		err := pc.cs.addTopics(octx, []string{t})
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				pc.cs.c.log.Warn("subscribing to a discovered topic failed", "topic", t, "err", err)
			}
			continue
		}
		pc.cs.c.log.Info("subscribed to a discovered topic", "topic", t)
	}
	for t := range have {
		if !slices.Contains(want, t) {
			pc.drop(ctx, t)
		}
	}
	pc.growFromNames(ctx)
}

// drop unsubscribes from topic and closes its engines.
func (pc *patternConsumer) drop(ctx context.Context, topic string) {
	octx, cancel := context.WithTimeout(ctx, pc.cs.c.opts.OperationTimeout)
	defer cancel()
	for _, e := range pc.cs.set.remove(topic) {
		if err := e.Unsubscribe(octx); err != nil {
			pc.cs.c.log.Debug("unsubscribing from a topic gone from the pattern", "topic", e.Topic(), "err", err)
		}
		e.Close()
	}
	pc.cs.c.log.Info("dropped a topic gone from the pattern", "topic", topic)
}

// growFromNames subscribes to the new partitions of a partitioned topic
// when the names heard list more partitions than are consumed (a watcher
// announces each new partition).
func (pc *patternConsumer) growFromNames(ctx context.Context) {
	for topic, n := range pc.cs.set.topics() {
		if n == 0 || !pc.names[topicname.PartitionName(topic, n)] {
			continue
		}
		octx, cancel := context.WithTimeout(ctx, pc.cs.c.opts.OperationTimeout)
		if err := pc.cs.growTopic(octx, topic, n); err != nil && ctx.Err() == nil {
			pc.cs.c.log.Warn("partition discovery failed", "topic", topic, "err", err)
		}
		cancel()
	}
}

// watchPattern is the pattern a topic-list watcher is registered with:
// every topic of the namespace, which the consumer then filters with its
// own pattern (the broker applies Java's regexp syntax and whole-name
// matching, the official Go client Go's and unanchored matching; ".*"
// matches the same either way and fits any broker's
// subscriptionPatternMaxLength).
const watchPattern = ".*"

// How a watch attempt ended.
type watchResult int

const (
	watching     watchResult = iota // pc.w is set
	watchRefused                    // no watchers here: an HTTP service URL, a broker without them, a refusal
	watchFailed                     // the connection failed or timed out: worth retrying soon
)

// watch registers a topic-list watcher when the service's broker supports
// them, and follows the list it answers with. pc.w stays nil unless it
// returns watching.
func (pc *patternConsumer) watch(ctx context.Context) watchResult {
	ws, ok := pc.cs.c.lookup.(lookup.Watcher)
	if !ok {
		return watchRefused
	}
	octx, cancel := context.WithTimeout(ctx, pc.cs.c.opts.OperationTimeout)
	defer cancel()
	cn, err := ws.WatchConn(octx)
	if err != nil {
		return watchFailed
	}
	if !cn.SupportsTopicWatchers() {
		return watchRefused
	}
	w := newTopicWatch(cn, pc.cs.c.nextID())
	ok2, err := cn.WatchTopicList(octx, w.id, pc.pat.ns, watchPattern, pc.hash, w)
	if err != nil {
		if ctx.Err() != nil {
			return watchFailed
		}
		if conn.IsRetriable(err) {
			pc.cs.c.log.Debug("topic-list watch failed; retrying", "namespace", pc.pat.ns, "err", err)
			return watchFailed
		}
		pc.cs.c.log.Info("topic-list watch refused; polling", "namespace", pc.pat.ns, "err", err)
		return watchRefused
	}
	pc.w = w
	if ok2.GetTopicsHash() != pc.hash {
		pc.setNames(ok2.GetTopic(), ok2.GetTopicsHash())
	}
	pc.reconcile(ctx)
	return watching
}

// unwatch closes the watcher, if any.
func (pc *patternConsumer) unwatch() {
	if pc.w == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), pc.cs.c.opts.OperationTimeout)
	defer cancel()
	_ = pc.w.conn.CloseTopicListWatcher(ctx, pc.w.id)
	pc.w = nil
}

// applyUpdates applies the watcher's queued updates to the names heard
// (listing them anew when updates were lost) and follows the changes.
func (pc *patternConsumer) applyUpdates(ctx context.Context) {
	updates, lost := pc.w.take()
	if lost {
		pc.hash = ""
		pc.poll(ctx)
		return
	}
	for _, u := range updates {
		for _, t := range u.GetDeletedTopics() {
			delete(pc.names, t)
		}
		for _, t := range u.GetNewTopics() {
			pc.names[t] = true
		}
		pc.hash = u.GetTopicsHash()
	}
	pc.reconcile(ctx)
}
