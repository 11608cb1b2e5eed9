package engine

import (
	"time"
)

// StatsWindow is how often Pulsar recomputes the rates its stats report
// (statsUpdateFrequencyInSecs, default 60 s).
const StatsWindow = 60 * time.Second

// Rate counts events and reports them per second over the last complete
// statsWindow, on the broker's clock, as Pulsar's Rate reads between two
// stats updates: 0 until the first window has passed, and 0 again after a
// window without events. Windows start when the topic was loaded. The zero
// value is not ready: set start.
type Rate struct {
	Start time.Time // start of the current window
	cur   int64     // events in the current window
	last  float64   // events per second in the last complete window
}

// roll moves to the window that holds now.
func (r *Rate) roll(now time.Time) {
	n := now.Sub(r.Start) / StatsWindow
	if n <= 0 {
		return
	}
	r.last = 0
	if n == 1 {
		r.last = float64(r.cur) / StatsWindow.Seconds()
	}
	r.cur = 0
	r.Start = r.Start.Add(n * StatsWindow)
}

// Record counts n events at now.
func (r *Rate) Record(now time.Time, n int64) {
	r.roll(now)
	r.cur += n
}

// Value is the rate of the last complete window at now.
func (r *Rate) Value(now time.Time) float64 {
	r.roll(now)
	return r.last
}
