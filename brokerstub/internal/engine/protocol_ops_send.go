package engine

// The data path of a SEND, as the binary protocol hands it over: the
// publish rates charged on the connection's goroutine, then the checks,
// the store and the receipt on the topic goroutine (Producer.Store).

import (
	"slices"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// SendRequest is one SEND as its producer's topic stores it: the frame
// as read and what the command says of it.
type SendRequest struct {
	// Frame is the SEND's frame: its metadata (raw and decoded), payload
	// and checksum. The caller owns its buffer and releases it after
	// Store returns; Store may Keep it for a large entry. Only its
	// decoded Meta is used once Store has returned.
	Frame *wire.Frame
	// Seq and Highest are the SEND's sequence_id and highest_sequence_id.
	Seq, Highest uint64
	// Num is the number of messages of the entry (a batch's size).
	Num int32
	// Size is the payload's length in bytes, for the topic's counters.
	Size int
	// Txn is the SEND's transaction when InTxn.
	Txn   txn.ID
	InTxn bool
}

// NonPersistent reports whether the producer's topic is non-persistent.
func (p *Producer) NonPersistent() bool { return p.t.np != nil }

// Store stores the SEND r of p, or refuses it (encryption required,
// transactions on a non-persistent topic, a terminated topic, a delay
// beyond the policy's, a duplicate) with SEND_ERROR or the receipt of the
// duplicate; the receipt goes once the entry is durable (pipeline.go).
// Topic goroutine (Producer.Do).
func (p *Producer) Store(r *SendRequest) {
	t, seq, highest := p.t, r.Seq, r.Highest
	rawMeta, payload, md := r.Frame.RawMeta, r.Frame.Payload, r.Frame.Meta
	if t.limits.encryptionRequired && len(md.GetEncryptionKeys()) == 0 {
		p.peer.Send(SendError(p.id, seq, proto.ServerError_MetadataError, msgMustEncrypt)) // gates.go
		return
	}
	if t.np != nil && r.InTxn { // as Pulsar's NonPersistentTopic
		p.peer.Send(SendError(p.id, seq, proto.ServerError_NotAllowedError, "Do not support transaction on non-persistent topics"))
		return
	}
	if t.np != nil {
		// Consumers' queues keep what they are sent until it is
		// written, so they get a copy of the pooled frame.
		meta, body := slices.Clone(rawMeta), slices.Clone(payload)
		t.publishNonPersistent(p, seq, highest, meta, body, r.Num)
		return
	}
	if t.adm.terminated {
		p.peer.Send(SendError(p.id, seq, proto.ServerError_TopicTerminatedError, "Topic was already terminated"))
		return
	}
	if msg := t.exceedsMaxDelay(md); msg != "" { // delayed.go
		p.peer.Send(SendError(p.id, seq, proto.ServerError_NotAllowedError, msg))
		return
	}
	if t.dedup.isDuplicate(md, p.name, seq) {
		p.peer.Send(t.dupReceipt(p.id, seq, highest))
		return
	}
	stored := rawMeta
	if r.InTxn {
		if err := t.txnAdmitSend(r.Txn); err != nil { // txn_topic.go
			p.peer.Send(SendError(p.id, seq, TxnErrorCode(err), txn.ErrorText(err)))
			return
		}
		stored = txn.Tagged(rawMeta, r.Txn)
	}
	// The receipt goes once the entry is durable (pipeline.go). A
	// transaction's entry is appended synchronously, so that it is in the
	// transaction buffer before the next command (an END_TXN) runs.
	//
	// The ledger copies an entry before AppendEntry returns, so the frame's
	// buffer goes back to the pool when Store returns; but an entry of
	// ledger.OwnBufferAt or more (larger than a chunk of the default
	// maximum message size) keeps the frame's buffer instead of a copy of
	// it when the buffer fits it closely, and the pool allocates another.
	// The SEND's checksum goes out again with the entry's MESSAGEs when the
	// metadata is stored as received (not txn-tagged).
	b := ledger.Bytes{Meta: stored, Payload: payload, Sum: r.Frame.Checksum, HasSum: r.Frame.HasChecksum && !r.InTxn}
	if len(stored)+len(payload) >= ledger.OwnBufferAt && r.Frame.Keep() {
		b.Own = ledger.Given
	}
	t.AppendEntry(b, md.GetPublishTime(), r.Num, r.InTxn, func(pos ledger.Position, err error) { p.stored(r, pos, err) })
}

// stored finishes the SEND r once its entry is durable at pos (or
// failed): the receipt, or a SEND_ERROR. Topic goroutine; r.Frame may be
// released by now: only its decoded Meta is used.
func (p *Producer) stored(r *SendRequest, pos ledger.Position, err error) {
	t := p.t
	if err != nil {
		t.b.log.Error("store entry", "topic", t.name.Full, "producer", p.name, "err", err)
		p.peer.Send(SendError(p.id, r.Seq, proto.ServerError_PersistenceError, err.Error()))
		return
	}
	md := r.Frame.Meta
	if r.InTxn {
		t.txnStored(r.Txn, pos)
	} else {
		// A transaction's entry has its info parsed from the stored,
		// txn-tagged metadata instead.
		t.noteInfo(pos, md, r.Num)
	}
	t.countIn(p, r.Num, r.Size)
	t.dedup.record(md, p.name, r.Seq, r.Highest)
	p.peer.Send(p.receipt.fill(p.id, r.Seq, r.Highest, pos, int32(t.name.Partition)))
}

// DropNonPersistent drops a SEND of p (a non-persistent topic's) that its
// connection has no room for, as Pulsar does: counted in the publisher's
// drop rate, and answered with the receipt of a dropped message. It
// reports false if the topic has stopped (nothing was answered).
func (p *Producer) DropNonPersistent(seq, highest uint64, num int64) bool {
	t := p.t
	return t.Do(func() {
		t.np.publisherDropRate(p).Record(t.b.cfg.Clock.Now(), num)
		p.peer.Send(t.Receipt(p.id, seq, highest, npDropID))
	})
}

// ChargePublish charges a SEND of msgs messages and size bytes to the
// topic's counters and to the broker's and the topic's publish rates;
// held is called with each rate that runs out and how long until it holds
// a token again. Connection goroutine (the counters and rates are safe to
// use from any goroutine).
func (p *Producer) ChargePublish(msgs int32, size int, held func(*RatePair, time.Duration)) {
	t := p.t
	t.rates.publishedMsgs.Add(int64(max(msgs, 1)))
	t.rates.publishedBytes.Add(int64(size))
	br, tr := t.b.brokerRates().publish, t.rates.publish.Load()
	if br == nil && tr == nil {
		return
	}
	now := t.b.cfg.Clock.Now()
	for _, rp := range []*RatePair{br, tr} {
		rp.consume(int64(max(msgs, 1)), int64(size), now)
		if w := rp.Wait(now); w > 0 {
			held(rp, w)
		}
	}
}
