package pulsar

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/proto"
)

// adminCall serves one admin API request in process (the broker may have
// no listener) and returns the status and body.
func adminCall(t *testing.T, b *brokerstub.Broker, method, path, body string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	b.AdminHandler().ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// sendTo produces payloads to topic with a new producer (creating the
// topic), without batching.
func sendTo(t *testing.T, c Client, topic string, payloads ...string) {
	t.Helper()
	p, err := c.CreateProducer(ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	defer p.Close()
	for _, s := range payloads {
		_, err := p.Send(context.Background(), &ProducerMessage{Payload: []byte(s)})
		require.NoError(t, err)
	}
}

// countCommands counts the inbound commands of the given types and fails
// those of type fail; while *slowUpdates is set, WATCH_TOPIC_UPDATEs are
// held back 5 s.
func countCommands(b *brokerstub.Broker, slowUpdates *atomic.Bool, fail brokerstub.Command, types ...brokerstub.Command) map[brokerstub.Command]*atomic.Int64 {
	n := map[brokerstub.Command]*atomic.Int64{}
	for _, t := range types {
		n[t] = &atomic.Int64{}
	}
	b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
		if ev.Dir != brokerstub.Inbound {
			if ev.Type == brokerstub.CmdWatchTopicUpdate && slowUpdates.Load() {
				return brokerstub.Action{Delay: 5 * time.Second}
			}
			return brokerstub.Action{}
		}
		if c := n[ev.Type]; c != nil {
			c.Add(1)
		}
		if ev.Type == fail {
			return brokerstub.Action{Fail: true, FailWith: "NotAllowedError"}
		}
		return brokerstub.Action{}
	})
	return n
}

func payloads(ms []Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m.Payload())
	}
	slices.Sort(out)
	return out
}

// namespaceTopics lists public/default's persistent topics over the admin
// API.
func namespaceTopics(t *testing.T, b *brokerstub.Broker) []string {
	t.Helper()
	code, body := adminCall(t, b, http.MethodGet, "/admin/v2/persistent/public/default", "")
	require.Equal(t, http.StatusOK, code, body)
	var out []string
	require.NoError(t, json.Unmarshal([]byte(body), &out))
	return out
}

func TestPatternConsumerFollowsTopicListWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		var slow atomic.Bool
		n := countCommands(v.b, &slow, "", brokerstub.CmdWatchTopicList, brokerstub.CmdGetTopicsOfNamespace)
		sendTo(t, v.c, "pw-a", "a1")
		sendTo(t, v.c, "unrelated-pw", "x")
		cons := v.subscribe(ConsumerOptions{TopicsPattern: "persistent://public/default/pw-.*", AutoDiscoveryPeriod: time.Hour})
		assert.Equal(t, []string{"a1"}, payloads(csRecvN(t, cons, 1)))

		// A topic created later is subscribed to on the watcher's update,
		// long before the hour-long poll period.
		start := time.Now()
		sendTo(t, v.c, "pw-b", "b1")
		assert.Equal(t, []string{"b1"}, payloads(csRecvN(t, cons, 1)))

		// A partitioned topic: each partition, and a partition added later.
		require.NoError(t, v.b.CreatePartitionedTopic("pw-parts", 2))
		sendTo(t, v.c, "pw-parts", "p1", "p2")
		assert.Equal(t, []string{"p1", "p2"}, payloads(csRecvN(t, cons, 2)))
		code, body := adminCall(t, v.b, http.MethodPost, "/admin/v2/persistent/public/default/pw-parts/partitions", "3")
		require.Equal(t, http.StatusNoContent, code, body)
		synctest.Wait()
		sendTo(t, v.c, "pw-parts-partition-2", "p3")
		assert.Equal(t, []string{"p3"}, payloads(csRecvN(t, cons, 1)))
		assert.Less(t, time.Since(start), time.Hour, "found by the watcher, not by polling")

		// A topic deleted is dropped, not created again by the consumer's
		// resubscription, even when the consumer hears of the deletion
		// after its resubscription.
		slow.Store(true)
		code, body = adminCall(t, v.b, http.MethodDelete, "/admin/v2/persistent/public/default/pw-b?force=true", "")
		require.Equal(t, http.StatusNoContent, code, body)
		time.Sleep(6 * time.Second) // the bubble's clock: the update's delay
		synctest.Wait()
		slow.Store(false)
		assert.NotContains(t, namespaceTopics(t, v.b), "persistent://public/default/pw-b")
		topics := slices.Collect(func(yield func(string) bool) {
			for tp := range cons.(*consumerImpl).set.topics() {
				yield(tp)
			}
		})
		slices.Sort(topics)
		assert.Equal(t, []string{"persistent://public/default/pw-a", "persistent://public/default/pw-parts"}, topics)

		csNone(t, cons, time.Second) // nothing of unrelated-pw
		assert.Equal(t, int64(1), n[brokerstub.CmdWatchTopicList].Load())
		assert.Equal(t, int64(1), n[brokerstub.CmdGetTopicsOfNamespace].Load(), "listed once, then watched")
	})
}

func TestPatternConsumerPollsWithoutWatchers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The topic waits a minute for the poll with no subscription: on
		// Pulsar's defaults it would be deleted as inactive meanwhile.
		v := newCSEnv(t, brokerstub.Options{Lifecycle: brokerstub.Lifecycle{DisableInactiveTopicDeletion: true}})
		n := countCommands(v.b, new(atomic.Bool), brokerstub.CmdWatchTopicList, brokerstub.CmdWatchTopicList, brokerstub.CmdGetTopicsOfNamespace)
		cons := v.subscribe(ConsumerOptions{TopicsPattern: "public/default/pp-.*", AutoDiscoveryPeriod: time.Minute})
		start := time.Now()
		sendTo(t, v.c, "pp-a", "a1")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		m, err := cons.Receive(ctx)
		require.NoError(t, err)
		assert.Equal(t, "a1", string(m.Payload()))
		assert.GreaterOrEqual(t, time.Since(start), time.Minute, "found by the poll after AutoDiscoveryPeriod")
		assert.Less(t, time.Since(start), 2*time.Minute)
		assert.GreaterOrEqual(t, n[brokerstub.CmdGetTopicsOfNamespace].Load(), int64(2))
		assert.GreaterOrEqual(t, n[brokerstub.CmdWatchTopicList].Load(), int64(2), "the watch is tried again at each period")
	})
}

// Patterns match as the official Go client's: from the namespace on,
// unanchored, names without partition suffix.
func TestTopicsPatternMatchesAsTheOfficialClient(t *testing.T) {
	names := map[string]bool{
		"persistent://public/default/foo":               true,
		"persistent://public/default/foo-1":             true,
		"persistent://public/default/foo-p-partition-0": true,
		"persistent://public/default/foo-p-partition-1": true,
		"persistent://public/default/bar":               true,
		"persistent://public/other/foo-2":               true,
	}
	for pattern, want := range map[string][]string{
		"persistent://public/default/foo-*": {"foo", "foo-1", "foo-p"}, // unanchored: "foo" then any "-"
		"public/default/foo-.*":             {"foo-1", "foo-p"},
		"foo.*":                             {"foo", "foo-1", "foo-p"},
		"persistent://public/default/.*":    {"bar", "foo", "foo-1", "foo-p"},
	} {
		p, err := parseTopicsPattern(pattern)
		require.NoError(t, err, pattern)
		var got []string
		for _, f := range p.filter(names) {
			got = append(got, strings.TrimPrefix(f, "persistent://public/default/"))
		}
		assert.Equal(t, want, got, pattern)
	}
	for _, bad := range []string{"persistent://public/default/(", "ftp://public/default/.*", ""} {
		_, err := parseTopicsPattern(bad)
		assert.ErrorIs(t, err, ErrInvalidOptions, bad)
	}
}

// A watcher whose loop falls behind keeps at most maxQueuedUpdates updates
// and then reports them lost (the loop lists the namespace anew).
func TestTopicWatchQueueIsBounded(t *testing.T) {
	w := newTopicWatch(nil, 1)
	u := &proto.CommandWatchTopicUpdate{NewTopics: []string{"persistent://public/default/x"}}
	for range maxQueuedUpdates {
		w.Update(u)
	}
	got, lost := w.take()
	assert.Len(t, got, maxQueuedUpdates)
	assert.False(t, lost)
	for range maxQueuedUpdates + 10 {
		w.Update(u)
	}
	got, lost = w.take()
	assert.True(t, lost)
	assert.LessOrEqual(t, len(got), maxQueuedUpdates)
	got, lost = w.take()
	assert.Empty(t, got)
	assert.False(t, lost)
	w.ConnectionClosed()
	w.ConnectionClosed() // idempotent
	<-w.gone
}

// A watcher lost with its connection (a broker restart) is registered
// again at once, with the hash of the list held: topics created afterwards
// are still found without waiting for the poll period.
func TestPatternConsumerWatchesAgainAfterReconnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		n := countCommands(v.b, new(atomic.Bool), "", brokerstub.CmdWatchTopicList, brokerstub.CmdGetTopicsOfNamespace)
		sendTo(t, v.c, "pr-1", "one")
		cons := v.subscribe(ConsumerOptions{TopicsPattern: "pr-.*", AutoDiscoveryPeriod: time.Hour})
		m := csRecv(t, cons)
		assert.Equal(t, "one", string(m.Payload()))
		require.NoError(t, cons.Ack(m))
		synctest.Wait() // the ack has reached the broker: "one" is not redelivered
		require.NoError(t, v.b.Restart())
		synctest.Wait()
		start := time.Now()
		sendTo(t, v.c, "pr-2", "two")
		assert.Equal(t, []string{"two"}, payloads(csRecvN(t, cons, 1)))
		assert.Less(t, time.Since(start), time.Hour)
		assert.Equal(t, int64(2), n[brokerstub.CmdWatchTopicList].Load())
		assert.Equal(t, int64(1), n[brokerstub.CmdGetTopicsOfNamespace].Load())
	})
}
