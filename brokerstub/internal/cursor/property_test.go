package cursor

import (
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// model is the property test's reference: which (entry, batch index) pairs
// are acknowledged, and that set as of the last flush.
type model struct {
	layout  *fakeLayout
	batch   []int    // batch size per layout index
	acked   [][]bool // acked[i][k]: index k of entry i acknowledged
	flushed [][]bool // acked as of the last persist
}

func cloneAcked(a [][]bool) [][]bool {
	out := make([][]bool, len(a))
	for i, x := range a {
		out[i] = slices.Clone(x)
	}
	return out
}

func (m *model) equalAcked(a, b [][]bool) bool {
	for i := range m.batch {
		if !slices.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func (m *model) full(i int) bool { return !slices.Contains(m.acked[i], false) }

// ackIdx marks the given indexes of entry i acked; reports a change.
func (m *model) ackIdx(i int, idx func(k int) bool) bool {
	ch := false
	for k := range m.acked[i] {
		if !m.acked[i][k] && idx(k) {
			m.acked[i][k] = true
			ch = true
		}
	}
	return ch
}

func all(int) bool { return true }

// clearInWire reports whether ackSet says index k is acknowledged (bit clear
// or word missing): the wire meaning the cursor implements.
func clearInWire(ackSet []int64, k int) bool {
	return k/64 >= len(ackSet) || ackSet[k/64]&(1<<uint(k%64)) == 0
}

func (m *model) addLedger(ledger int64, entries int, rnd *rand.Rand) {
	for e := 0; e < entries; e++ {
		b := 1
		switch r := rnd.Intn(10); {
		case r < 4:
			b = 2 + rnd.Intn(9)
		case r == 4:
			b = 60 + rnd.Intn(80) // two or three words
		}
		m.batch = append(m.batch, b)
		m.acked = append(m.acked, make([]bool, b))
		m.flushed = append(m.flushed, make([]bool, b))
	}
	m.layout.appendLedger(ledger, int64(entries))
}

func TestCursorModelProperty(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("CURSOR_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		require.NoError(t, err, "CURSOR_SEED")
		seed = v
	}
	t.Logf("CURSOR_SEED=%d", seed)
	ops := 12000
	if testing.Short() {
		ops = 10000
	}
	runModel(t, seed, ops)
}

func runModel(t *testing.T, seed int64, ops int) {
	rnd := rand.New(rand.NewSource(seed))
	m := &model{layout: &fakeLayout{}}
	nextLedger := int64(3)
	for k := 0; k < 4; k++ {
		m.addLedger(nextLedger, 1+rnd.Intn(12), rnd)
		nextLedger += 1 + int64(rnd.Intn(2)) // gaps: 3, 5, 6, ...
	}
	clk := newClock()
	rates := []float64{0, 1, 5}
	opts := Options{FlushInterval: time.Second, MarkDeleteRate: rates[rnd.Intn(len(rates))], Now: clk.Now}
	var layout Layout = m.layout
	if rnd.Intn(2) == 0 {
		layout = walkLayout{m.layout}
	}
	c := New(pos(3, -1), layout, opts)

	var trace []string
	fail := func(op int, format string, args ...any) string {
		start := max(0, len(trace)-25)
		return fmt.Sprintf("CURSOR_SEED=%d op %d: %s\nlast ops:\n  %s", seed, op,
			fmt.Sprintf(format, args...), strings.Join(trace[start:], "\n  "))
	}
	// pick returns a layout index biased toward the mark-delete position
	// so that acks fill holes and move it.
	pick := func() int {
		n := len(m.batch)
		if rnd.Intn(3) == 0 {
			return rnd.Intn(n)
		}
		lo, _ := slices.BinarySearchFunc(m.layout.pos, c.MarkDelete(), func(a, b Position) int { return a.Compare(b) })
		return min(n-1, lo+rnd.Intn(8))
	}
	// delayed holds layout indexes of delayed messages (deliver_at_time on
	// a Shared subscription) with the time they fall due: until then no
	// consumer has them, so individual acks pass them by and leave holes
	// behind the entries after them, the cursor shape delayed delivery gives.
	delayed := map[int]time.Time{}
	pickDelivered := func() int {
		i := pick()
		for j := i; j < len(m.batch); j++ {
			if due, ok := delayed[j]; !ok || !clk.Now().Before(due) {
				return j
			}
		}
		return i
	}
	randAckSet := func(i int) []int64 {
		b := m.batch[i]
		var idx []int
		if rnd.Intn(4) == 0 {
			for k := 0; k < b; k++ {
				if rnd.Intn(3) == 0 {
					idx = append(idx, k)
				}
			}
		} else {
			idx = []int{rnd.Intn(b)}
		}
		w := unackedSet(b, idx...)
		switch rnd.Intn(10) {
		case 0: // garbage bits beyond the batch size: ignored
			if b%64 != 0 {
				w[len(w)-1] |= -1 << uint(b%64)
			}
			w = append(w, -1)
		case 1: // short: missing words mean acknowledged
			w = w[:rnd.Intn(len(w)+1)]
		}
		return w
	}
	// eq and truth build the failure message only when they fail.
	eq := func(op int, want, got any, format string, args ...any) {
		if !reflect.DeepEqual(want, got) {
			t.Helper()
			require.Equal(t, want, got, fail(op, format, args...))
		}
	}
	truth := func(op int, cond bool, format string, args ...any) {
		if !cond {
			t.Helper()
			require.FailNow(t, fail(op, format, args...))
		}
	}
	persisted := func(op int) {
		m.flushed = cloneAcked(m.acked)
		eq(op, c.Current(), c.Persisted(), "persisted state differs from current after a flush")
	}
	checkAll := func(op int) {
		for i, p := range m.layout.pos {
			b := m.batch[i]
			full := m.full(i)
			if got := c.IsAcked(p); got != full {
				eq(op, full, got, "IsAcked(%v)", p)
			}
			var want []int
			if !full {
				for k, a := range m.acked[i] {
					if a {
						want = append(want, k)
					}
				}
			}
			if got := ackedIndexes(c.AckSet(p), b); !slices.Equal(got, want) {
				eq(op, want, got, "acked indexes of %v", p)
			}
			wantUnacked := b - len(want)
			if full {
				wantUnacked = 0
			}
			if got := c.UnackedInEntry(p, b); got != wantUnacked {
				eq(op, wantUnacked, got, "UnackedInEntry(%v)", p)
			}
		}
		// Backlog and NextUnacked against the model.
		last := m.layout.pos[rnd.Intn(len(m.layout.pos))]
		backlog, firstAfter := 0, -1
		after := m.layout.pos[rnd.Intn(len(m.layout.pos))]
		for i, p := range m.layout.pos {
			if !m.full(i) {
				if !last.Less(p) {
					backlog++
				}
				if firstAfter < 0 && after.Less(p) {
					firstAfter = i
				}
			}
		}
		eq(op, backlog, c.Backlog(last), "Backlog(%v)", last)
		q, ok := c.NextUnacked(after)
		eq(op, firstAfter >= 0, ok, "NextUnacked(%v) found", after)
		if ok {
			eq(op, m.layout.pos[firstAfter], q, "NextUnacked(%v)", after)
		}
		if !c.Dirty() {
			truth(op, m.equalAcked(m.acked, m.flushed), "clean cursor whose state was not persisted")
		}
	}
	recoverFrom := func(op int, what string) {
		r, err := Restore(c.PersistedBytes(), layout, opts)
		truth(op, err == nil, "%s: %v", what, err)
		c = r
		m.acked = cloneAcked(m.flushed)
		checkAll(op)
	}

	for op := 0; op < ops; op++ {
		if len(trace) > 200 {
			trace = append(trace[:0], trace[len(trace)-25:]...)
		}
		wasDirty := c.Dirty()
		modelChanged, gotChanged, isAck := false, false, false
		switch r := rnd.Intn(100); {
		case r < 20: // individual whole-entry ack
			i := pickDelivered()
			trace = append(trace, fmt.Sprintf("AckIndividual(%v, nil)", m.layout.pos[i]))
			isAck = true
			modelChanged = m.ackIdx(i, all)
			gotChanged = c.AckIndividual(m.layout.pos[i], nil, m.batch[i])
		case r < 45: // batch-index ack
			i := pickDelivered()
			w := randAckSet(i)
			trace = append(trace, fmt.Sprintf("AckIndividual(%v, %x, %d)", m.layout.pos[i], w, m.batch[i]))
			isAck = true
			modelChanged = m.ackIdx(i, func(k int) bool { return clearInWire(w, k) })
			gotChanged = c.AckIndividual(m.layout.pos[i], w, m.batch[i])
		case r < 47: // a message not acknowledged yet becomes delayed for 1-5 s
			i := pick()
			delayed[i] = clk.Now().Add(time.Duration(1+rnd.Intn(5)) * time.Second)
			trace = append(trace, fmt.Sprintf("Delayed(%v until +%v)", m.layout.pos[i], delayed[i].Sub(clk.Now())))
		case r < 52: // cumulative whole
			i := pick()
			trace = append(trace, fmt.Sprintf("AckCumulative(%v, nil)", m.layout.pos[i]))
			isAck = true
			for j := 0; j <= i; j++ {
				modelChanged = m.ackIdx(j, all) || modelChanged
			}
			gotChanged = c.AckCumulative(m.layout.pos[i], nil, m.batch[i])
		case r < 57: // cumulative up to a batch index
			i := pick()
			w := randAckSet(i)
			trace = append(trace, fmt.Sprintf("AckCumulative(%v, %x, %d)", m.layout.pos[i], w, m.batch[i]))
			isAck = true
			if !m.layout.pos[i].Less(c.MarkDelete()) {
				for j := 0; j < i; j++ {
					modelChanged = m.ackIdx(j, all) || modelChanged
				}
				modelChanged = m.ackIdx(i, func(k int) bool { return clearInWire(w, k) }) || modelChanged
			}
			gotChanged = c.AckCumulative(m.layout.pos[i], w, m.batch[i])
		case r < 59: // ack of a position that does not exist, or a bad batch size
			p := m.layout.pos[rnd.Intn(len(m.layout.pos))]
			q := Position{Ledger: p.Ledger, Entry: p.Entry + 1000}
			trace = append(trace, fmt.Sprintf("AckIndividual(missing %v)", q))
			isAck = true
			gotChanged = c.AckIndividual(q, nil, 1) || c.AckCumulative(q, nil, 1) ||
				c.AckIndividual(p, []int64{0}, 0) || c.AckCumulative(p, []int64{0}, -1)
		case r < 61: // seek
			i := rnd.Intn(len(m.batch) + 1)
			var p Position
			var w []int64
			if i == len(m.batch) {
				last := m.layout.pos[i-1]
				p = Position{Ledger: last.Ledger, Entry: last.Entry + 1}
			} else {
				p = m.layout.pos[i]
				if rnd.Intn(2) == 0 {
					k := rnd.Intn(m.batch[i] + 1)
					w = unackedSet(m.batch[i])
					for j := 0; j < k; j++ {
						w[j/64] &^= 1 << uint(j%64)
					}
				}
			}
			trace = append(trace, fmt.Sprintf("Reset(%v, %x)", p, w))
			for j := range m.batch {
				for k := range m.acked[j] {
					m.acked[j][k] = j < i || (j == i && w != nil && clearInWire(w, k))
				}
			}
			c.Reset(p, w)
			truth(op, c.Dirty(), "Reset must mark dirty")
		case r < 66:
			trace = append(trace, "Flush")
			if _, ok := c.Flush(); ok {
				persisted(op)
			} else {
				truth(op, !(wasDirty), "Flush of a dirty cursor did nothing")
			}
			truth(op, !(c.Dirty()), "dirty after Flush")
		case r < 92:
			d := time.Duration(rnd.Intn(1500)) * time.Millisecond
			clk.Advance(d)
			trace = append(trace, fmt.Sprintf("Tick(+%v)", d))
			if _, ok := c.MaybeFlush(); ok {
				persisted(op)
			}
		case r < 95:
			trace = append(trace, "Crash")
			recoverFrom(op, "restore after crash")
		case r < 98:
			trace = append(trace, "Restart")
			if _, ok := c.Flush(); ok {
				persisted(op)
			}
			recoverFrom(op, "restore after graceful restart")
			truth(op, !(c.Dirty()), "dirty after a graceful restart")
		default:
			if len(m.batch) < 150 {
				trace = append(trace, fmt.Sprintf("AppendLedger(%d)", nextLedger))
				m.addLedger(nextLedger, 1+rnd.Intn(12), rnd)
				nextLedger += 1 + int64(rnd.Intn(2))
			}
		}
		if isAck {
			eq(op, modelChanged, gotChanged, "changed")
			if modelChanged {
				truth(op, c.Dirty(), "a changing ack must mark the cursor dirty")
			} else {
				eq(op, wasDirty, c.Dirty(), "a no-op ack must not change dirty")
			}
		}
		if op%16 == 0 {
			checkAll(op)
		}
	}
	checkAll(ops)
}
