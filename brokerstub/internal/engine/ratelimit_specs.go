package engine

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/ratelimit"
)

// rateSpec is a rate limit in effect: messages and bytes per period
// (0 or less: none of that kind), and whether the topic's publish rate is
// added to it.
type rateSpec struct {
	msgs, bytes int64
	period      time.Duration
	relative    bool
}

func (r rateSpec) on() bool { return r.msgs > 0 || r.bytes > 0 }

// RatePair is a message and a byte bucket; a nil bucket, or a nil pair,
// limits nothing. Safe for concurrent use.
type RatePair struct {
	spec       rateSpec
	msg, bytes *ratelimit.Bucket
}

// newRatePair returns the buckets of spec, or nil when it limits nothing.
func newRatePair(spec rateSpec, now time.Time) *RatePair {
	if !spec.on() {
		return nil
	}
	p := &RatePair{spec: spec}
	if spec.msgs > 0 {
		p.msg = ratelimit.New(spec.msgs, spec.period, now)
	}
	if spec.bytes > 0 {
		p.bytes = ratelimit.New(spec.bytes, spec.period, now)
	}
	return p
}

// renew returns p when spec is the same, else new buckets for spec.
func (p *RatePair) renew(spec rateSpec, now time.Time) *RatePair {
	if p != nil && p.spec == spec {
		return p
	}
	return newRatePair(spec, now)
}

func (p *RatePair) consume(msgs, bytes int64, now time.Time) {
	if p == nil {
		return
	}
	if p.msg != nil {
		p.msg.Consume(msgs, now)
	}
	if p.bytes != nil {
		p.bytes.Consume(bytes, now)
	}
}

// Wait is how long until both buckets hold a token again: 0 now.
func (p *RatePair) Wait(now time.Time) time.Duration {
	if p == nil {
		return 0
	}
	var w time.Duration
	if p.msg != nil {
		w = p.msg.Wait(now)
	}
	if p.bytes != nil {
		w = max(w, p.bytes.Wait(now))
	}
	return w
}

// relativeTo sets the buckets' rates to the spec's plus a publish rate (per
// second), for a spec relative to the publish rate.
func (p *RatePair) relativeTo(msgsPerSec, bytesPerSec int64, now time.Time) {
	if p == nil || !p.spec.relative {
		return
	}
	if p.msg != nil {
		p.msg.SetRate(p.spec.msgs+msgsPerSec, p.spec.period, now)
	}
	if p.bytes != nil {
		p.bytes.SetRate(p.spec.bytes+bytesPerSec, p.spec.period, now)
	}
}

// brokerRates are the broker-wide publish and dispatch buckets, made on
// first use.
type brokerRates struct {
	once              sync.Once
	publish, dispatch *RatePair
}

func (b *Engine) brokerRates() *brokerRates {
	br := &b.rates
	br.once.Do(func() {
		r, now := b.cfg.RateLimits, b.cfg.Clock.Now()
		br.publish = newRatePair(rateSpec{msgs: r.BrokerPublishMsgRate, bytes: r.BrokerPublishByteRate, period: time.Second}, now)
		br.dispatch = newRatePair(rateSpec{msgs: r.BrokerDispatchMsgRate, bytes: r.BrokerDispatchByteRate, period: time.Second}, now)
	})
	return br
}

// The JSON of the admin API's rate policies (Pulsar's DispatchRate,
// PublishRate and SubscribeRate).
type (
	DispatchRateJSON struct {
		Msgs     *FlexInt `json:"dispatchThrottlingRateInMsg"`
		Bytes    *FlexInt `json:"dispatchThrottlingRateInByte"`
		Relative bool     `json:"relativeToPublishRate"`
		Period   *FlexInt `json:"ratePeriodInSecond"`
	}
	PublishRateJSON struct {
		Msgs  *FlexInt `json:"publishThrottlingRateInMsg"`
		Bytes *FlexInt `json:"publishThrottlingRateInByte"`
	}
	SubscribeRateJSON struct {
		Rate   *FlexInt `json:"subscribeThrottlingRatePerConsumer"`
		Period *FlexInt `json:"ratePeriodInSecond"`
	}
)

func flexOr(v *FlexInt, def int64) int64 {
	if v == nil {
		return def
	}
	return int64(*v)
}

// periodOf is a policy's ratePeriodInSecond: def when unset, 1 s when not
// positive (as Pulsar's token buckets take it).
func periodOf(v *FlexInt, def time.Duration) time.Duration {
	if v == nil {
		return def
	}
	if n := int64(*v); n > 0 && n < 1<<31 {
		return time.Duration(n) * time.Second
	}
	return time.Second
}

// policyValue decodes a stored rate policy into out: the object itself or,
// as Pulsar's Policies keep a namespace's, a map by cluster name whose
// entry for this cluster is taken. It reports false when there is none or
// it does not decode.
func (b *Engine) policyValue(raw json.RawMessage, ok bool, out any) bool {
	if !ok || len(raw) == 0 || string(raw) == "null" {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	if v, ok := m[b.cfg.ClusterName]; ok && len(m) == 1 {
		raw = v
	}
	return json.Unmarshal(raw, out) == nil
}

// dispatchKind names a dispatch rate's level.
type dispatchKind int

const (
	topicDispatch dispatchKind = iota
	subscriptionDispatch
)

// dispatchRateFor resolves a topic's dispatch rate of a kind: a topic
// policy that is set (even to no limit), else a namespace policy that
// limits something, else the broker's, as Pulsar's DispatchRateLimiter.
func (b *Engine) dispatchRateFor(name TopicName, kind dispatchKind) rateSpec {
	pol := b.Pol()
	topicField, nsFields := "dispatchRate", []string{"topicDispatchRate", "clusterDispatchRate"}
	r := b.cfg.RateLimits
	def := rateSpec{msgs: r.TopicDispatchMsgRate, bytes: r.TopicDispatchByteRate, period: time.Second, relative: r.DispatchRelativeToPublishRate}
	if kind == subscriptionDispatch {
		topicField, nsFields = "subscriptionDispatchRate", []string{"subscriptionDispatchRate"}
		def.msgs, def.bytes = r.SubscriptionDispatchMsgRate, r.SubscriptionDispatchByteRate
	}
	spec := func(j DispatchRateJSON) rateSpec {
		return rateSpec{msgs: flexOr(j.Msgs, -1), bytes: flexOr(j.Bytes, -1), period: periodOf(j.Period, time.Second), relative: j.Relative}
	}
	var j DispatchRateJSON
	if raw, ok := pol.TopicPolicy(name.Base, topicField); b.policyValue(raw, ok, &j) {
		return spec(j)
	}
	for _, f := range nsFields {
		j = DispatchRateJSON{}
		if raw, ok, _ := pol.NamespacePolicy(name.Namespace, f); b.policyValue(raw, ok, &j) && spec(j).on() {
			return spec(j)
		}
	}
	return def
}

// publishRateFor resolves a topic's publish rate: its publishRate policy,
// else its namespace's publishMaxMessageRate, else the broker's
// maxPublishRatePerTopic keys.
func (b *Engine) publishRateFor(name TopicName) rateSpec {
	pol := b.Pol()
	var j PublishRateJSON
	spec := func() rateSpec {
		return rateSpec{msgs: flexOr(j.Msgs, -1), bytes: flexOr(j.Bytes, -1), period: time.Second}
	}
	if raw, ok := pol.TopicPolicy(name.Base, "publishRate"); b.policyValue(raw, ok, &j) {
		return spec()
	}
	j = PublishRateJSON{}
	if raw, ok, _ := pol.NamespacePolicy(name.Namespace, "publishMaxMessageRate"); b.policyValue(raw, ok, &j) {
		return spec()
	}
	r := b.cfg.RateLimits
	return rateSpec{msgs: r.TopicPublishMsgRate, bytes: r.TopicPublishByteRate, period: time.Second}
}

// subscribeRateFor resolves a topic's subscribe rate per consumer: its
// subscribeRate policy, else its namespace's clusterSubscribeRate, else
// the broker's.
func (b *Engine) subscribeRateFor(name TopicName) rateSpec {
	pol := b.Pol()
	var j SubscribeRateJSON
	spec := func() rateSpec {
		return rateSpec{msgs: flexOr(j.Rate, -1), period: periodOf(j.Period, 30*time.Second)}
	}
	if raw, ok := pol.TopicPolicy(name.Base, "subscribeRate"); b.policyValue(raw, ok, &j) {
		return spec()
	}
	j = SubscribeRateJSON{}
	if raw, ok, _ := pol.NamespacePolicy(name.Namespace, "clusterSubscribeRate"); b.policyValue(raw, ok, &j) {
		return spec()
	}
	r := b.cfg.RateLimits
	return rateSpec{msgs: r.SubscribeRatePerConsumer, period: r.SubscribeRatePeriod}
}

// CheckRatePolicy returns a check of a rate policy's body (admin API, the
// namespace's and the topic's): it must be the policy's JSON object, as
// Pulsar's Jackson reads it, else 400 with the reason.
func CheckRatePolicy(out func() any) func(json.RawMessage) string {
	return func(v json.RawMessage) string {
		if json.Unmarshal(v, out()) != nil {
			return "Invalid rate policy: want a JSON object of integer rates, got " + truncate(string(v), 64)
		}
		return ""
	}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
