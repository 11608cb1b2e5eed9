package producer

import (
	"testing"
	"time"
)

// TestEventMillisNone: the zero time, the official client's "none"
// (time.Unix(0, 0)) and times before the epoch send no event_time; before
// the fix a pre-1970 time went out as a huge unsigned number.
func TestEventMillisNone(t *testing.T) {
	for _, tc := range []struct {
		t    time.Time
		want uint64
		ok   bool
	}{
		{time.Time{}, 0, false},
		{time.Unix(0, 0), 0, false},
		{time.Unix(-60, 0), 0, false},
		{time.UnixMilli(1), 1, true},
		{time.UnixMilli(1_700_000_000_123), 1_700_000_000_123, true},
	} {
		got, ok := eventMillis(tc.t)
		if got != tc.want || ok != tc.ok {
			t.Errorf("eventMillis(%v) = %d, %v; want %d, %v", tc.t, got, ok, tc.want, tc.ok)
		}
	}
}
