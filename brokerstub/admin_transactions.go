package brokerstub

import (
	"errors"
	"net/http"
	"strconv"
)

// The admin API's transactions resource (/admin/v3/transactions), with
// Pulsar's JSON: what the official Go client's tests read to inspect a
// transaction (transactionMetadata), and the coordinator's and a topic's
// view of it. With the coordinator off every path answers 503, as Pulsar's.

// registerTransactions adds its routes; any authenticated role may read
// them, as Pulsar serves them (the official Go client's tests read
// transactionMetadata as the anonymous role of a broker with authorization
// on).
func (a *adminServer) registerTransactions() {
	const base = "/admin/v3/transactions"
	a.add(get, base+"/coordinatorStats", opAuthenticated, txnCoordinatorStats)
	a.add(get, base+"/transactionMetadata/{most}/{least}", opAuthenticated, txnMetadata)
	a.add(get, base+"/transactionInBufferStats/{tenant}/{ns}/{topic}/{most}/{least}", opAuthenticated, txnInBufferStats)
	a.add(get, base+"/transactionInPendingAckStats/{tenant}/{ns}/{topic}/{sub}/{most}/{least}", opAuthenticated, txnInPendingAckStats)
}

// txnCoordinator returns the coordinator for an admin request, or 503.
func (rq *adminReq) txnCoordinator() (*coordinator, error) {
	c := rq.b.tc.Load()
	if c == nil {
		return nil, restErr(http.StatusServiceUnavailable, "This Broker is not configured with transactionCoordinatorEnabled=true.")
	}
	return c, nil
}

// txnIDParam reads {most}/{least}.
func (rq *adminReq) txnIDParam() (txnID, error) {
	most, err1 := strconv.ParseUint(rq.p["most"], 10, 64)
	least, err2 := strconv.ParseUint(rq.p["least"], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return txnID{}, restErr(http.StatusPreconditionFailed, "Invalid transaction id: %v", err)
	}
	return txnID{Most: most, Least: least}, nil
}

// txnRESTError maps a coordinator error to Pulsar's status: 404 for a
// transaction or coordinator that does not exist.
func txnRESTError(err error) error {
	if errors.Is(err, errTxnNotFound) || errors.Is(err, errTCNotFound) {
		return restErr(http.StatusNotFound, "%v", err)
	}
	return err
}

// txnInBufferJSON is Pulsar's TransactionInBufferStats.
type txnInBufferJSON struct {
	StartPosition *string `json:"startPosition"`
	Aborted       bool    `json:"aborted"`
}

// txnInPendingAckJSON is Pulsar's TransactionInPendingAckStats.
type txnInPendingAckJSON struct {
	CumulativeAckPosition *string `json:"cumulativeAckPosition"`
}

func txnCoordinatorStats(rq *adminReq) (any, error) {
	c, err := rq.txnCoordinator()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	st := map[string]any{"state": "Ready", "leastSigBits": int64(c.next) - 1, "lowWaterMark": 0,
		"ongoingTxnSize": len(c.txns), "recoverStartTime": 0, "recoverEndTime": 0}
	c.mu.Unlock()
	if id := rq.q.Get("coordinatorId"); id != "" {
		if id != "0" {
			return nil, restErr(http.StatusNotFound, "Transaction coordinator not found. coordinatorId : %s", id)
		}
		return st, nil
	}
	return map[string]any{"0": st}, nil
}

func txnMetadata(rq *adminReq) (any, error) {
	c, err := rq.txnCoordinator()
	if err != nil {
		return nil, err
	}
	id, err := rq.txnIDParam()
	if err != nil {
		return nil, err
	}
	m, err := c.snapshot(id)
	if err != nil {
		return nil, txnRESTError(err)
	}
	produced := map[string]txnInBufferJSON{}
	for _, p := range m.Partitions {
		produced[p] = rq.b.txnInBuffer(p, id)
	}
	acked := map[string]map[string]txnInPendingAckJSON{}
	for _, s := range m.Subs {
		if acked[s.Topic] == nil {
			acked[s.Topic] = map[string]txnInPendingAckJSON{}
		}
		acked[s.Topic][s.Sub] = txnInPendingAckJSON{CumulativeAckPosition: cumulativeOf(m.Acks, s)}
	}
	return map[string]any{
		"txnId":              id.String(),
		"status":             m.Status.String(),
		"openTimestamp":      m.OpenedAt,
		"timeoutAt":          m.TimeoutAt - m.OpenedAt, // Pulsar reports the timeout itself, in ms
		"producedPartitions": produced,
		"ackedPartitions":    acked,
	}, nil
}

// cumulativeOf is the position that a transaction's acks acknowledge
// cumulatively on s, nil when none.
func cumulativeOf(acks []txnAckRec, s txnSubRef) *string {
	var out *string
	for _, r := range acks {
		if r.Cumulative && r.Topic == s.Topic && r.Sub == s.Sub {
			p := r.pos().String()
			out = &p
		}
	}
	return out
}

// txnInBuffer is what topic's transaction buffer knows of id: the position
// of its first message there (while open) and whether it was aborted.
func (b *Broker) txnInBuffer(topic string, id txnID) txnInBufferJSON {
	var out txnInBufferJSON
	name, err := parseTopic(topic)
	if err != nil {
		return out
	}
	t, err := b.getTopic(name, false)
	if err != nil {
		return out
	}
	_ = t.call(func() {
		if t.txn == nil {
			return
		}
		if p, ok := t.txn.open[id]; ok {
			s := p.String()
			out.StartPosition = &s
		}
		_, out.Aborted = t.txn.aborted[id]
	})
	return out
}

func txnInBufferStats(rq *adminReq) (any, error) {
	if _, err := rq.txnCoordinator(); err != nil {
		return nil, err
	}
	rq.p["domain"] = "persistent"
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	id, err := rq.txnIDParam()
	if err != nil {
		return nil, err
	}
	return rq.b.txnInBuffer(name.Full, id), nil
}

func txnInPendingAckStats(rq *adminReq) (any, error) {
	c, err := rq.txnCoordinator()
	if err != nil {
		return nil, err
	}
	rq.p["domain"] = "persistent"
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	id, err := rq.txnIDParam()
	if err != nil {
		return nil, err
	}
	m, err := c.snapshot(id)
	if err != nil {
		return nil, txnRESTError(err)
	}
	return txnInPendingAckJSON{CumulativeAckPosition: cumulativeOf(m.Acks, txnSubRef{name.Full, rq.p["sub"]})}, nil
}
