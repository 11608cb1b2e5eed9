package engine

import (
	"net"

	"github.com/pulsargo/sdk/brokerstub/internal/ratelimit"
)

// Subscribe rate limits, as Pulsar's SubscribeRateLimiter: a consumer — its
// client's host, its name and its id, so that a reconnecting consumer is
// the same one — may subscribe to a persistent topic RateLimits.
// SubscribeRatePerConsumer times per period (policy subscribeRate); one
// more is refused with NotAllowedError and Pulsar's text. Topic goroutine.

const msgSubscribeRate = "Subscribe limited by subscribe rate limit per consumer."

// maxSubscribers bounds the buckets a topic keeps by consumer: past it,
// the full ones (which limit nothing) are dropped, and if none is, the
// oldest state is forgotten altogether.
const maxSubscribers = 10_000

// subscriberKey is a consumer as the subscribe rate counts it.
type subscriberKey struct {
	host string
	name string
	id   uint64
}

// refuseSubscribeRate returns Pulsar's refusal of cs's subscribe beyond its
// subscribe rate, or "" when it may go on (and is counted).
func (t *Topic) refuseSubscribeRate(cs *Consumer) string {
	spec := t.rates.subscribe
	if t.np != nil || !spec.on() || exemptFromLimits(t.name) {
		return ""
	}
	host := ""
	if a := cs.peer.RemoteAddr(); a != nil {
		host = a.String()
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
	}
	key := subscriberKey{host: host, name: cs.name, id: cs.id}
	now := t.b.cfg.Clock.Now()
	bk := t.rates.subscribers[key]
	if bk == nil {
		if t.rates.subscribers == nil || len(t.rates.subscribers) >= maxSubscribers {
			t.pruneSubscribers()
		}
		bk = ratelimit.New(spec.msgs, spec.period, now)
		t.rates.subscribers[key] = bk
	}
	if bk.Tokens(now) < 1 {
		return msgSubscribeRate
	}
	bk.Consume(1, now)
	return ""
}

// pruneSubscribers drops the buckets that are full again; if that leaves
// the map at its bound, it starts afresh.
func (t *Topic) pruneSubscribers() {
	if t.rates.subscribers == nil {
		t.rates.subscribers = map[subscriberKey]*ratelimit.Bucket{}
		return
	}
	now := t.b.cfg.Clock.Now()
	for k, bk := range t.rates.subscribers {
		if rate, _ := bk.Rate(); bk.Tokens(now) >= rate {
			delete(t.rates.subscribers, k)
		}
	}
	if len(t.rates.subscribers) >= maxSubscribers {
		clear(t.rates.subscribers)
	}
}
