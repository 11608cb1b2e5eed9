package engine

import (
	"fmt"

	"github.com/pulsargo/sdk/brokerstub/internal/console"
	"github.com/pulsargo/sdk/brokerstub/internal/keyshared"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
)

// cursorEntry is one entry's state for the cursor line. Topic goroutine.
func (s *Subscription) cursorEntry(e ledger.Entry, holder map[ledger.Position]string, delayed map[ledger.Position]bool, acks *txn.PendingAcks) console.CursorEntry {
	in := s.t.peekInfo(e)
	ce := console.CursorEntry{Pos: PosString(e.Pos), Key: string(in.key), DeliverAt: in.deliverAt, Redelivered: s.redeliveries[e.Pos]}
	if in.batched {
		ce.Batch = in.numMessages
	}
	if in.uuid != "" {
		ce.Chunk = fmt.Sprintf("%s %d/%d", in.uuid, in.chunkID+1, in.numChunks)
	}
	if in.inTxn {
		ce.Txn = in.txn.String()
	}
	if s.ks != nil && len(in.key) > 0 {
		h := s.ks.Hash(in.murmur)
		ce.Hash = &h
	}
	switch {
	case s.Cur.IsAcked(e.Pos):
		ce.State = "acked"
	case holder[e.Pos] != "":
		ce.State, ce.Consumer = "pending", holder[e.Pos]
	case s.replay.Contains(e.Pos):
		ce.State = "replay"
	case delayed[e.Pos]:
		ce.State = "delayed"
	case e.Pos.Compare(s.readPos) > 0:
		ce.State = "unread"
	default:
		ce.State = "held"
	}
	if set := s.Cur.AckSet(e.Pos); set != nil && in.batched {
		for i := range min(int(in.numMessages), 64*len(set)) {
			if set[i/64]&(1<<(i%64)) == 0 {
				ce.AckedIndexes = append(ce.AckedIndexes, i)
			}
		}
		// A delivered or queued entry keeps that state (its bits are
		// drawn on it); one waiting to be read is "partial".
		if len(ce.AckedIndexes) > 0 && (ce.State == "unread" || ce.State == "held") {
			ce.State = "partial"
		}
	}
	for _, pa := range acks.At(e.Pos) {
		ce.TxnAck = pa.Txn.String()
		for i := range int(in.numMessages) {
			if pa.Ack.AckSet != nil && i/64 < len(pa.Ack.AckSet) && pa.Ack.AckSet[i/64]&(1<<(i%64)) == 0 {
				ce.TxnAcks = append(ce.TxnAcks, int64(i))
			}
		}
	}
	if cum, ok := acks.Cumulative(); ok && e.Pos.Compare(cum.Ack.Pos()) <= 0 {
		ce.TxnAck = cum.Txn.String() + " cumulative"
	}
	return ce
}

// peekInfo parses an entry's metadata without adding it to the topic's
// cache (a console must not change what dispatch holds).
func (t *Topic) peekInfo(e ledger.Entry) *entryInfo {
	if in, ok := t.infos[e.Pos]; ok {
		return in
	}
	return parseEntryInfo(e)
}

// keySharedView builds page 4 from the inspection snapshot
// (keySharedSnapshot) and the replay set. Topic goroutine.
func (s *Subscription) keySharedView() console.KeyShared {
	st := s.keySharedSnapshot()
	sel := s.ks.Selector()
	out := console.KeyShared{Topic: s.t.name.Full, Subscription: s.name, Mode: st.Mode, Selector: st.Selector,
		OutOfOrder: st.OutOfOrder, RangeStart: st.HashRange.Start, RangeEnd: st.HashRange.End,
		ReadPosition: PosString(s.readPos), MarkDelete: PosString(s.Cur.MarkDelete()), ReplaySize: st.ReplaySize,
		LookAheadLimit: st.LookAheadLimit, Consumers: []console.KSConsumer{}, Draining: []console.Draining{},
		HeldBack: []console.HeldBack{}, Ranges: []console.RangeOwner{}}
	span := float64(st.HashRange.Size())
	byKS := map[keyshared.ConsumerID]*Consumer{}
	for id, cs := range s.ksByID {
		byKS[id] = cs
	}
	for i, c := range st.Consumers {
		cs := s.Consumers[i]
		kc := console.KSConsumer{ID: c.Id, Name: c.Name, Permits: c.Permits, Pending: c.Pending, Draining: len(c.Draining)}
		for _, pe := range cs.pending {
			kc.Unacked += int64(max(pe.batch, 1))
		}
		for _, r := range c.Ranges {
			kc.Share += float64(r.Size()) / span
		}
		out.Consumers = append(out.Consumers, kc)
		for _, d := range c.Draining {
			dr := console.Draining{Hash: d.Hash, HeldBy: c.Name, HeldByID: c.Id, Unacked: d.Unacked, Blocked: d.Blocked}
			if id, ok := sel.Select(d.Hash); ok {
				if o := byKS[id]; o != nil {
					dr.Owner, dr.OwnerID = o.name, o.id
				}
			}
			out.Draining = append(out.Draining, dr)
		}
	}
	for _, a := range sel.Assignments() {
		ro := console.RangeOwner{Start: a.Range.Start, End: a.Range.End}
		if cs := byKS[a.Consumer]; cs != nil {
			ro.Consumer, ro.Name = cs.id, cs.name
		}
		out.Ranges = append(out.Ranges, ro)
	}
	drainingAt := map[int32]console.Draining{}
	for _, d := range out.Draining {
		drainingAt[d.Hash] = d
	}
	switch {
	case s.replay.Len() >= st.LookAheadLimit:
		out.NormalReadStopped = fmt.Sprintf("the replay set holds %d entries, the look-ahead limit is %d: no new entry is read until it shrinks", s.replay.Len(), st.LookAheadLimit)
	case !s.ks.NormalReadAllowed():
		out.NormalReadStopped = "no consumer has permits"
	}
	for i := range s.replay.Len() {
		if i == maxHeldBack {
			out.HeldBackMore = true
			break
		}
		p, h := s.replay.At(i)
		hb := console.HeldBack{Pos: PosString(p), Hash: h}
		if e, ok := s.t.Led.Get(p); ok {
			hb.Key = string(s.t.peekInfo(e).key)
		}
		id, owned := sel.Select(h)
		owner := byKS[id]
		d, draining := drainingAt[h]
		switch {
		case !owned || owner == nil:
			hb.Reason = "no consumer owns its hash"
		case draining && d.HeldByID != owner.id:
			hb.Reason = fmt.Sprintf("hash draining: waits for %s to ack %d entries (or leave) before %s gets it", d.HeldBy, d.Unacked, owner.name)
		case owner.Permits <= 0:
			hb.Reason = owner.name + " has no permits"
		default:
			hb.Reason = "ready for " + owner.name + " on the next dispatch pass"
		}
		out.HeldBack = append(out.HeldBack, hb)
	}
	return out
}

// summary is the subscription's line on the topic page. Topic goroutine.
func (s *Subscription) summary() console.Subscription {
	backlog, _ := s.backlogOf()
	out := console.Subscription{Name: s.name, Type: subTypeNames[s.typ], Durable: s.durable, Backlog: backlog,
		MarkDelete: PosString(s.Cur.MarkDelete()), ReadPosition: PosString(s.readPos), Blocked: s.Blocked,
		Consumers: []console.Consumer{}}
	if sc := s.t.adm.subs[s.name]; sc != nil {
		out.MsgOut = sc.msgs
	}
	for _, n := range s.redeliveries {
		out.Redeliveries += int64(n)
	}
	if s.active != nil {
		out.Active = s.active.name
	}
	for _, cs := range s.Consumers {
		c := console.Consumer{ID: cs.id, Name: cs.name, Permits: cs.Permits, Pending: len(cs.pending), Blocked: cs.Blocked, Priority: cs.priority}
		for _, pe := range cs.pending {
			c.Unacked += int64(max(pe.batch, 1))
		}
		if ci := s.t.adm.consumers[cs]; ci != nil {
			c.Address = ci.address
		}
		out.Unacked += c.Unacked
		out.Consumers = append(out.Consumers, c)
	}
	return out
}

// maxHeldBack bounds the replay entries the Key_Shared page explains.
const maxHeldBack = 200
