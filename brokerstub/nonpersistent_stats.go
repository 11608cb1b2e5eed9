package brokerstub

import (
	"time"

	"github.com/pulsargo/sdk/internal/proto"
)

// statsWindow is how often Pulsar recomputes the rates its stats report
// (statsUpdateFrequencyInSecs, default 60 s).
const statsWindow = 60 * time.Second

// rate counts events and reports them per second over the last complete
// statsWindow, on the broker's clock, as Pulsar's Rate reads between two
// stats updates: 0 until the first window has passed, and 0 again after a
// window without events. Windows start when the topic was loaded. The zero
// value is not ready: set start.
type rate struct {
	start time.Time // start of the current window
	cur   int64     // events in the current window
	last  float64   // events per second in the last complete window
}

// roll moves to the window that holds now.
func (r *rate) roll(now time.Time) {
	n := now.Sub(r.start) / statsWindow
	if n <= 0 {
		return
	}
	r.last = 0
	if n == 1 {
		r.last = float64(r.cur) / statsWindow.Seconds()
	}
	r.cur = 0
	r.start = r.start.Add(n * statsWindow)
}

// record counts n events at now.
func (r *rate) record(now time.Time, n int64) {
	r.roll(now)
	r.cur += n
}

// value is the rate of the last complete window at now.
func (r *rate) value(now time.Time) float64 {
	r.roll(now)
	return r.last
}

// ksModeNames are Pulsar's KeySharedMode names, as the stats write them.
var ksModeNames = map[proto.KeySharedMode]string{
	proto.KeySharedMode_AUTO_SPLIT: "AUTO_SPLIT", proto.KeySharedMode_STICKY: "STICKY",
}

// addNonPersistentStats turns the TopicStats of a non-persistent topic
// into Pulsar's NonPersistentTopicStats: msgDropRate on the topic, each
// publisher and each subscription, and a Key_Shared subscription's
// keySharedMode, without what Pulsar leaves unset there. The topic's own
// msgDropRate is 0: Pulsar 4.x never sets it on a topic's stats
// (partitioned stats sum it). A publisher's counts what was dropped because
// its connection had more than
// Gates.MaxConcurrentNonPersistentMessagePerConnection sends in flight
// (np_inflight.go). Topic goroutine; a no-op on a persistent topic.
func (t *topic) addNonPersistentStats(st *topicStats) {
	if t.np == nil {
		return
	}
	now := t.b.opts.Clock.Now()
	st.MsgDropRate = new(0.0)
	// Pulsar sets neither on a non-persistent topic (no managed ledger, no
	// deduplication); its JSON leaves out what is null.
	st.TopicCreationTimeStamp = 0
	st.DeduplicationStatus = ""
	for _, p := range st.Publishers {
		p.MsgDropRate = new(t.publisherDropValue(p.ProducerName))
	}
	for name, ss := range st.Subscriptions {
		ss.MsgDropRate = new(0.0)
		ss.ActiveConsumerName = nil // not in a NonPersistentSubscription's stats
		s := t.subs[name]
		if s == nil {
			continue
		}
		if r := t.np.drops[s]; r != nil {
			ss.MsgDropRate = new(r.value(now))
		}
		if s.typ == proto.CommandSubscribe_Key_Shared && s.ks != nil {
			ss.KeySharedMode = ksModeNames[s.ks.Config().Mode]
		}
	}
}
