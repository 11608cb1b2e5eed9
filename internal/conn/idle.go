package conn

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/pulsargo/sdk/internal/proto"
)

// slotKey names a pool slot: the address, and the connection's index
// among the MaxConnsPerBroker connections to it.
func slotKey(addr string, i uint64) string { return fmt.Sprintf("%s#%d", addr, i) }

// reapIdle closes the connections idle (no producer, consumer or pending
// request) at two checks MaxIdle/2 apart, until the pool closes.
func (p *Pool) reapIdle() {
	t := time.NewTicker(p.opts.MaxIdle / 2)
	defer t.Stop()
	idleSince := map[*Conn]time.Time{}
	for {
		select {
		case <-p.stop:
			return
		case now := <-t.C:
			for _, c := range p.reap(idleSince, now) {
				p.opts.Logger.Debug("closing idle connection", "broker", c.addr, "maxIdle", p.opts.MaxIdle)
				c.Close()
			}
		}
	}
}

// reap removes from the pool and returns the connections idle since at
// least MaxIdle before now; idleSince remembers when each was first seen
// idle.
func (p *Pool) reap(idleSince map[*Conn]time.Time, now time.Time) []*Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*Conn
	seen := map[*Conn]bool{}
	for key, d := range p.conns {
		select {
		case <-d.done:
		default:
			continue // still dialing
		}
		c := d.conn
		if c == nil || c.Err() != nil || !c.idle() {
			continue
		}
		seen[c] = true
		since, ok := idleSince[c]
		if !ok {
			idleSince[c] = now
			continue
		}
		if now.Sub(since) >= p.opts.MaxIdle {
			delete(p.conns, key)
			out = append(out, c)
		}
	}
	for c := range idleSince {
		if !seen[c] {
			delete(idleSince, c)
		}
	}
	return out
}

// idle reports whether no producer or consumer is registered and no
// request waits for its answer.
func (c *Conn) idle() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.producers) == 0 && len(c.consumers) == 0 && len(c.waiters) == 0
}

// keyValues converts properties to the wire's KeyValue list, sorted by key
// (nil for none).
func keyValues(m map[string]string) []*proto.KeyValue {
	if len(m) == 0 {
		return nil
	}
	out := make([]*proto.KeyValue, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, &proto.KeyValue{Key: &k, Value: new(m[k])})
	}
	return out
}
