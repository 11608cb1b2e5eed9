package protocol

import (
	"slices"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// sendOp is one SEND on its way through the topic goroutine: everything
// the store and the receipt need, in one allocation.
type sendOp struct {
	c       *Conn
	p       *engine.Producer
	f       wire.Frame // owns the pooled buffer until release
	seq     uint64
	highest uint64
	num     int32
	size    int // payload bytes, for the topic's counters
	txn     txn.ID
	inTxn   bool
	np      bool // counted in the connection's non-persistent sends in flight (np_inflight.go)
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
	op := &sendOp{c: c, p: p, f: f.Move(), seq: m.GetSequenceId(), highest: m.GetHighestSequenceId(), num: num, size: len(f.Payload), np: np}
	op.txn, op.inTxn = txn.IDOf(m.TxnidMostBits, m.TxnidLeastBits)
	c.Sends.Take(op.f.Size) // given back by release (send_budget.go)
	// The publish rates may pause this connection's reads (ratelimit_publish.go).
	c.chargePublish(p.T, num, len(op.f.RawMeta)+len(op.f.Payload))
	if !p.T.Do(op.run) {
		op.release()
		c.write(engine.SendError(p.Id, op.seq, proto.ServerError_ServiceNotReady, "topic is being unloaded"))
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

// run handles the SEND on the topic goroutine.
func (op *sendOp) run() {
	defer op.release()
	c, p, t, seq, highest := op.c, op.p, op.p.T, op.seq, op.highest
	rawMeta, payload, md := op.f.RawMeta, op.f.Payload, op.f.Meta
	if t.Limits.EncryptionRequired && len(md.GetEncryptionKeys()) == 0 {
		c.write(engine.SendError(p.Id, seq, proto.ServerError_MetadataError, engine.MsgMustEncrypt)) // gates.go
		return
	}
	if t.Np != nil && op.inTxn { // as Pulsar's NonPersistentTopic
		c.write(engine.SendError(p.Id, seq, proto.ServerError_NotAllowedError, "Do not support transaction on non-persistent topics"))
		return
	}
	if t.Np != nil {
		// Consumers' queues keep what they are sent until it is
		// written, so they get a copy of the pooled frame.
		meta, body := slices.Clone(rawMeta), slices.Clone(payload)
		t.PublishNonPersistent(p, seq, highest, meta, body, op.num)
		return
	}
	if t.Adm.Terminated {
		c.write(engine.SendError(p.Id, seq, proto.ServerError_TopicTerminatedError, "Topic was already terminated"))
		return
	}
	if msg := t.ExceedsMaxDelay(md); msg != "" { // delayed.go
		c.write(engine.SendError(p.Id, seq, proto.ServerError_NotAllowedError, msg))
		return
	}
	if t.Dedup.IsDuplicate(md, p.Name, seq) {
		c.write(t.DupReceipt(p.Id, seq, highest))
		return
	}
	stored := rawMeta
	if op.inTxn {
		if err := t.TxnAdmitSend(op.txn); err != nil { // txn_topic.go
			c.write(engine.SendError(p.Id, seq, engine.TxnErrorCode(err), txn.ErrorText(err)))
			return
		}
		stored = txn.Tagged(rawMeta, op.txn)
	}
	// The receipt goes once the entry is durable (pipeline.go). A
	// transaction's entry is appended synchronously, so that it is in the
	// transaction buffer before the next command (an END_TXN) runs.
	//
	// The ledger copies an entry before appendEntry returns, so the frame's
	// buffer goes back to the pool when run returns; but an entry of
	// ledger.OwnBufferAt or more (larger than a chunk of the default
	// maximum message size) keeps the frame's buffer instead of a copy of
	// it when the buffer fits it closely, and the pool allocates another.
	// The SEND's checksum goes out again with the entry's MESSAGEs when the
	// metadata is stored as received (not txn-tagged).
	b := ledger.Bytes{Meta: stored, Payload: payload, Sum: op.f.Checksum, HasSum: op.f.HasChecksum && !op.inTxn}
	if len(stored)+len(payload) >= ledger.OwnBufferAt && op.f.Keep() {
		b.Own = ledger.Given
	}
	t.AppendEntry(b, md.GetPublishTime(), op.num, op.inTxn, op.stored)
}

// stored finishes the SEND once its entry is durable at pos (or failed):
// the receipt, or a SEND_ERROR. Topic goroutine; op.f may be released by
// now: only its decoded Meta is used.
func (op *sendOp) stored(pos ledger.Position, err error) {
	c, p, t := op.c, op.p, op.p.T
	if err != nil {
		c.log.Error("store entry", "topic", t.Name.Full, "err", err)
		c.write(engine.SendError(p.Id, op.seq, proto.ServerError_PersistenceError, err.Error()))
		return
	}
	md := op.f.Meta
	if op.inTxn {
		t.TxnStored(op.txn, pos)
	} else {
		// A transaction's entry has its info parsed from the stored,
		// txn-tagged metadata instead.
		t.NoteInfo(pos, md, op.num)
	}
	t.CountIn(p, op.num, op.size)
	t.Dedup.Record(md, p.Name, op.seq, op.highest)
	c.write(p.Receipt.Fill(p.Id, op.seq, op.highest, pos, int32(t.Name.Partition)))
}

// dropNonPersistent reports whether the SEND m of p is dropped because the
// connection has too many non-persistent SENDs in flight; when it is not
// and the topic is non-persistent, it counts it in flight (npSent takes it
// back). Read loop.
func (c *Conn) dropNonPersistent(p *engine.Producer, m *proto.CommandSend) (dropped, counted bool) {
	if p.T.Np == nil {
		return false, false
	}
	limit := int64(max(c.b.Cfg.MaxConcurrentNonPersistentMessagePerConnection, 0))
	if c.Gate.NpInFlight.Load() <= limit {
		c.Gate.NpInFlight.Add(1)
		return false, true
	}
	t, id, seq, highest, num := p.T, p.Id, m.GetSequenceId(), m.GetHighestSequenceId(), int64(max(m.GetNumMessages(), 1))
	if !t.Do(func() {
		t.Np.PublisherDropRate(p).Record(t.B.Cfg.Clock.Now(), num)
		c.write(t.Receipt(id, seq, highest, engine.NpDropID))
	}) {
		c.write(engine.SendError(id, seq, proto.ServerError_ServiceNotReady, "topic is being unloaded"))
	}
	return true, false
}

// npSent takes a non-persistent SEND out of the connection's count.
func (c *Conn) npSent() { c.Gate.NpInFlight.Add(-1) }

// chargePublish charges a SEND of msgs messages and size bytes to t's
// publish rates, pausing the connection's reads when one runs out.
// Connection goroutine.
func (c *Conn) chargePublish(t *engine.Topic, msgs int32, size int) {
	t.Rates.PublishedMsgs.Add(int64(max(msgs, 1)))
	t.Rates.PublishedBytes.Add(int64(size))
	br, tr := c.b.Eng.BrokerRates().Publish, t.Rates.Publish.Load()
	if br == nil && tr == nil {
		return
	}
	now := c.b.Cfg.Clock.Now()
	for _, p := range []*engine.RatePair{br, tr} {
		p.Consume(int64(max(msgs, 1)), int64(size), now)
		if w := p.Wait(now); w > 0 {
			c.pubHold.Add()
			c.unthrottleAfter(p, w)
		}
	}
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
