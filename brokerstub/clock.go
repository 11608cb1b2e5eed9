package brokerstub

import (
	"time"

	"github.com/pulsargo/sdk/internal/clock"
)

// Clock is the stub's source of time: broker timestamps of stored entries
// and cursor flushes. Tests inject a FakeClock to make
// time-dependent behaviour deterministic. The default is the real clock.
// It has two methods: Now() time.Time, and AfterFunc(d, f) (stop func()
// bool), which calls f once d has passed.
type Clock = clock.Clock

// FakeClock is a Clock that moves only when Advance is called; Advance runs
// the callbacks that fall due on the caller's goroutine, in order. It is
// safe for concurrent use.
type FakeClock = clock.Fake

// NewFakeClock returns a FakeClock reading start.
func NewFakeClock(start time.Time) *FakeClock { return clock.NewFake(start) }
