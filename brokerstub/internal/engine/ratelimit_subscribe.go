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
	spec := t.Rates.subscribe
	if t.Np != nil || !spec.on() || exemptFromLimits(t.Name) {
		return ""
	}
	host := ""
	if a := cs.Peer.RemoteAddr(); a != nil {
		host = a.String()
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
	}
	key := subscriberKey{host: host, name: cs.Name, id: cs.Id}
	now := t.B.Cfg.Clock.Now()
	bk := t.Rates.subscribers[key]
	if bk == nil {
		if t.Rates.subscribers == nil || len(t.Rates.subscribers) >= maxSubscribers {
			t.pruneSubscribers()
		}
		bk = ratelimit.New(spec.msgs, spec.period, now)
		t.Rates.subscribers[key] = bk
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
	if t.Rates.subscribers == nil {
		t.Rates.subscribers = map[subscriberKey]*ratelimit.Bucket{}
		return
	}
	now := t.B.Cfg.Clock.Now()
	for k, bk := range t.Rates.subscribers {
		if rate, _ := bk.Rate(); bk.Tokens(now) >= rate {
			delete(t.Rates.subscribers, k)
		}
	}
	if len(t.Rates.subscribers) >= maxSubscribers {
		clear(t.Rates.subscribers)
	}
}
