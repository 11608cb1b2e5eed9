package admin

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
)

// The admin API's transactions resource (/admin/v3/transactions), with
// Pulsar's JSON: what the official Go client's tests read to inspect a
// transaction (transactionMetadata), and the coordinator's and a topic's
// view of it. The views are internal/txn's typed structs; these handlers
// read the path and render them. With the coordinator off every path
// answers 503, as Pulsar's.

// registerTransactions adds its routes; any authenticated role may read
// them, as Pulsar serves them (the official Go client's tests read
// transactionMetadata as the anonymous role of a broker with authorization
// on).
func (a *routeTable) registerTransactions() {
	const base = "/admin/v3/transactions"
	a.Add(Get, base+"/coordinatorStats", opAuthenticated, txnCoordinatorStats)
	a.Add(Get, base+"/transactionMetadata/{most}/{least}", opAuthenticated, txnMetadata)
	a.Add(Get, base+"/transactionInBufferStats/{tenant}/{ns}/{topic}/{most}/{least}", opAuthenticated, txnInBufferStats)
	a.Add(Get, base+"/transactionInPendingAckStats/{tenant}/{ns}/{topic}/{sub}/{most}/{least}", opAuthenticated, txnInPendingAckStats)
}

// txnCoordinator returns the coordinator for an admin request, or 503.
func (rq *adminReq) txnCoordinator() (*txn.Coordinator, error) {
	c := rq.b.Eng.TxnCoordinator()
	if c == nil {
		return nil, engine.RestErr(http.StatusServiceUnavailable, "This Broker is not configured with transactionCoordinatorEnabled=true.")
	}
	return c, nil
}

// txnIDParam reads {most}/{least}.
func (rq *adminReq) txnIDParam() (txn.ID, error) {
	most, err1 := strconv.ParseUint(rq.p["most"], 10, 64)
	least, err2 := strconv.ParseUint(rq.p["least"], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return txn.ID{}, engine.RestErr(http.StatusPreconditionFailed, "Invalid transaction id: %v", err)
	}
	return txn.ID{Most: most, Least: least}, nil
}

// txnRESTError maps a coordinator error to Pulsar's status: 404 for a
// transaction or coordinator that does not exist.
func txnRESTError(err error) error {
	if errors.Is(err, txn.ErrNotFound) || errors.Is(err, txn.ErrTCNotFound) {
		return engine.RestErr(http.StatusNotFound, "%v", err)
	}
	return err
}

func txnCoordinatorStats(rq *adminReq) (any, error) {
	c, err := rq.txnCoordinator()
	if err != nil {
		return nil, err
	}
	st := c.Stats()
	if id := rq.q.Get("coordinatorId"); id != "" {
		if id != "0" {
			return nil, engine.RestErr(http.StatusNotFound, "Transaction coordinator not found. coordinatorId : %s", id)
		}
		return st, nil
	}
	return map[string]txn.CoordinatorStats{"0": st}, nil
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
	md, err := c.Metadata(id)
	if err != nil {
		return nil, txnRESTError(err)
	}
	return md, nil
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
	return rq.b.Eng.TxnInBuffer(name.Full, id), nil
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
	st, err := c.InPendingAck(id, txn.Sub{Topic: name.Full, Sub: rq.p["sub"]})
	if err != nil {
		return nil, txnRESTError(err)
	}
	return st, nil
}
