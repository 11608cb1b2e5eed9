package brokerstub

import (
	"fmt"
	"net/http"

	"github.com/pulsargo/sdk/brokerstub/internal/console"
	"github.com/pulsargo/sdk/brokerstub/internal/keyshared"
	pb "github.com/pulsargo/sdk/internal/proto"
)

func (s consoleSource) KeyShared(full, sub string) (console.KeyShared, error) {
	var out console.KeyShared
	var subErr error
	err := s.onTopic(full, func(t *topic) {
		sb, err := subOf(t, sub)
		if err != nil {
			subErr = err
			return
		}
		if sb.ks == nil || sb.typ != pb.CommandSubscribe_Key_Shared {
			subErr = &console.Problem{Status: http.StatusConflict, Reason: "Subscription " + sub + " is " + subTypeNames[sb.typ] + ", not Key_Shared"}
			return
		}
		out = sb.keySharedView()
	})
	if err == nil {
		err = subErr
	}
	return out, err
}

// maxHeldBack bounds the replay entries the Key_Shared page explains.
const maxHeldBack = 200

// keySharedView builds page 4 from the inspection snapshot
// (keySharedState) and the replay set. Topic goroutine.
func (s *subscription) keySharedView() console.KeyShared {
	st := s.keySharedState()
	sel := s.ks.Selector()
	out := console.KeyShared{Topic: s.t.name.Full, Subscription: s.name, Mode: st.Mode, Selector: st.Selector,
		OutOfOrder: st.AllowOutOfOrderDelivery, RangeStart: st.KeyHashRange.Start, RangeEnd: st.KeyHashRange.End,
		ReadPosition: posString(s.readPos), MarkDelete: posString(s.cur.MarkDelete()), ReplaySize: st.ReplaySize,
		LookAheadLimit: st.LookAheadLimit, Consumers: []console.KSConsumer{}, Draining: []console.Draining{},
		HeldBack: []console.HeldBack{}, Ranges: []console.RangeOwner{}}
	span := float64(st.KeyHashRange.End) - float64(st.KeyHashRange.Start) + 1
	byKS := map[keyshared.ConsumerID]*consumer{}
	for id, cs := range s.ksByID {
		byKS[id] = cs
	}
	for i, c := range st.Consumers {
		cs := s.consumers[i]
		kc := console.KSConsumer{ID: c.ConsumerID, Name: c.Name, Permits: c.Permits, Pending: c.Pending, Draining: len(c.DrainingHashes)}
		for _, pe := range cs.pending {
			kc.Unacked += int64(max(pe.batch, 1))
		}
		for _, r := range c.Ranges {
			kc.Share += (float64(r.End) - float64(r.Start) + 1) / span
		}
		out.Consumers = append(out.Consumers, kc)
		for _, d := range c.DrainingHashes {
			dr := console.Draining{Hash: d.Hash, HeldBy: c.Name, HeldByID: c.ConsumerID, Unacked: d.Unacked, Blocked: d.Blocked}
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
		hb := console.HeldBack{Pos: posString(p), Hash: h}
		if e, ok := s.t.led.Get(p); ok {
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
		case owner.permits <= 0:
			hb.Reason = owner.name + " has no permits"
		default:
			hb.Reason = "ready for " + owner.name + " on the next dispatch pass"
		}
		out.HeldBack = append(out.HeldBack, hb)
	}
	return out
}
