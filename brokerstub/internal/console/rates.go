package console

import "time"

// rateWindow is the span a rate is measured over.
const rateWindow = time.Second

// rater turns counters into rates per second for one live stream: each
// counter's rate is measured between samples at least rateWindow apart.
// Counters not seen in a poll are forgotten, so it holds no more than the
// view it rates.
type rater struct {
	now     time.Time
	samples map[string]sample
	seen    map[string]bool
}

type sample struct {
	v    int64
	at   time.Time
	rate float64
}

func (r *rater) begin(now time.Time) {
	r.now = now
	if r.samples == nil {
		r.samples = map[string]sample{}
	}
	r.seen = map[string]bool{}
}

func (r *rater) end() {
	for k := range r.samples {
		if !r.seen[k] {
			delete(r.samples, k)
		}
	}
}

// rate returns counter key's rate per second after it read v.
func (r *rater) rate(key string, v int64) float64 {
	if r.samples == nil {
		return 0
	}
	r.seen[key] = true
	s, ok := r.samples[key]
	switch {
	case !ok || v < s.v:
		r.samples[key] = sample{v: v, at: r.now}
		return 0
	case r.now.Sub(s.at) >= rateWindow:
		dt := r.now.Sub(s.at).Seconds()
		rt := float64(v-s.v) / dt
		rt = float64(int64(rt*10+0.5)) / 10
		r.samples[key] = sample{v: v, at: r.now, rate: rt}
		return rt
	}
	return s.rate
}

// rated is a view with counters a live stream turns into rates.
type rated interface{ withRates(r *rater) any }

func (o Overview) withRates(r *rater) any {
	for i := range o.Tenants {
		for j := range o.Tenants[i].Namespaces {
			ts := o.Tenants[i].Namespaces[j].Topics
			for k := range ts {
				ts[k].RateIn = r.rate("in "+ts[k].Name, ts[k].MsgIn)
				ts[k].RateOut = r.rate("out "+ts[k].Name, ts[k].MsgOut)
			}
		}
	}
	return o
}

func (t Topic) withRates(r *rater) any {
	t.RateIn = r.rate("in", t.MsgIn)
	t.RateOut = r.rate("out", t.MsgOut)
	for i := range t.Producers {
		p := &t.Producers[i]
		p.RateIn = r.rate("p "+p.Name, p.MsgIn)
	}
	for i := range t.Subscriptions {
		s := &t.Subscriptions[i]
		s.RateOut = r.rate("s "+s.Name, s.MsgOut)
	}
	return t
}
