package protocol

import (
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// sendOp is one SEND on its way through the topic goroutine: everything
// the store and the receipt need, in one allocation.
type sendOp struct {
	c   *Conn
	p   *engine.Producer
	f   wire.Frame // owns the pooled buffer until release
	req engine.SendRequest
	np  bool // counted in the connection's non-persistent sends in flight (np_inflight.go)
}

// handleSend stores a message and answers with a receipt. A send for a
// producer that is not attached closes the connection, as Pulsar does: the
// client then reconnects and resends what is pending, so nothing is lost.
func (c *Conn) handleSend(m *proto.CommandSend, f *wire.Frame) bool {
	c.mu.Lock()
	p := c.producers[m.GetProducerId()]
	c.mu.Unlock()
	if p == nil {
		c.log.Warn("send for a producer that is not attached; closing the connection", "producer", m.GetProducerId())
		return false
	}
	if !f.HasPayload || f.Meta == nil {
		c.replyError(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: m},
			proto.ServerError_UnknownError, "send without payload")
		return true
	}
	dropped, np := c.dropNonPersistent(p, m)
	if dropped {
		return true // answered in the topic's turn (np_inflight.go)
	}
	num := f.Meta.GetNumMessagesInBatch()
	if f.Meta.NumMessagesInBatch == nil {
		num = m.GetNumMessages()
	}
	// The frame's buffer is the read loop's pooled one: the topic's
	// goroutine releases it once the ledger has copied the entry (or the
	// SEND failed), so the read loop must not.
	op := &sendOp{c: c, p: p, f: f.Move(), np: np}
	id, inTxn := txn.IDOf(m.TxnidMostBits, m.TxnidLeastBits)
	op.req = engine.SendRequest{Frame: &op.f, Seq: m.GetSequenceId(), Highest: m.GetHighestSequenceId(),
		Num: num, Size: len(op.f.Payload), Txn: id, InTxn: inTxn}
	c.Sends.Take(op.f.Size) // given back by release (send_budget.go)
	// The publish rates may pause this connection's reads (ratelimit_publish.go).
	c.chargePublish(p, num, len(op.f.RawMeta)+len(op.f.Payload))
	if !p.Do(op.run) {
		op.release()
		c.write(engine.SendError(p.ID(), m.GetSequenceId(), proto.ServerError_ServiceNotReady, "topic is being unloaded"))
	}
	return true
}

// release gives the frame's buffer back to the pool and its bytes back to
// the connection's send budget.
func (op *sendOp) release() {
	op.f.Release()
	op.c.Sends.Give(op.f.Size)
	if op.np {
		op.c.npSent()
	}
}

// run handles the SEND on the topic goroutine: the producer stores it
// and answers (engine's protocol_ops_send.go).
func (op *sendOp) run() {
	defer op.release()
	op.p.Store(&op.req)
}

// dropNonPersistent reports whether the SEND m of p is dropped because the
// connection has too many non-persistent SENDs in flight; when it is not
// and the topic is non-persistent, it counts it in flight (npSent takes it
// back). Read loop.
func (c *Conn) dropNonPersistent(p *engine.Producer, m *proto.CommandSend) (dropped, counted bool) {
	if !p.NonPersistent() {
		return false, false
	}
	limit := int64(max(c.b.Cfg.MaxConcurrentNonPersistentMessagePerConnection, 0))
	if c.Gate.NpInFlight.Load() <= limit {
		c.Gate.NpInFlight.Add(1)
		return false, true
	}
	seq := m.GetSequenceId()
	if !p.DropNonPersistent(seq, m.GetHighestSequenceId(), int64(max(m.GetNumMessages(), 1))) {
		c.write(engine.SendError(p.ID(), seq, proto.ServerError_ServiceNotReady, "topic is being unloaded"))
	}
	return true, false
}

// npSent takes a non-persistent SEND out of the connection's count.
func (c *Conn) npSent() { c.Gate.NpInFlight.Add(-1) }

// chargePublish charges a SEND of msgs messages and size bytes to p's
// topic and publish rates, pausing the connection's reads when one runs
// out. Connection goroutine.
func (c *Conn) chargePublish(p *engine.Producer, msgs int32, size int) {
	p.ChargePublish(msgs, size, func(rp *engine.RatePair, w time.Duration) {
		c.pubHold.Add()
		c.unthrottleAfter(rp, w)
	})
}

// unthrottleAfter releases one hold of the reads once p holds a token
// again, checking after w and again as long as it does not.
func (c *Conn) unthrottleAfter(p *engine.RatePair, w time.Duration) {
	c.b.Cfg.Clock.AfterFunc(w, func() {
		if w := p.Wait(c.b.Cfg.Clock.Now()); w > 0 {
			c.unthrottleAfter(p, w)
			return
		}
		// The client was not silent: the broker did not read it. The
		// keep-alive counts from here (conn.keepAlive).
		c.lastRead.Store(time.Now().UnixNano())
		c.pubHold.Release()
	})
}
