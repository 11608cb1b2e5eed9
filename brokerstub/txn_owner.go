package brokerstub

import (
	"errors"
	"fmt"
)

// Transaction ownership (Pulsar's verifyTxnOwnership): with authentication
// on, a transaction belongs to the role that opened it (NEW_TXN's
// authenticated role, persisted with the coordinator's state). END_TXN,
// ADD_PARTITION_TO_TXN and ADD_SUBSCRIPTION_TO_TXN from another role are
// refused with TransactionNotFound, as Pulsar refuses them, unless
// authorization is on too and the role is a super user. A transaction
// opened without authentication has no owner and anyone may use it.
// Transactional SENDs and ACKs are not checked, as in Pulsar.

// errTxnNotOwned: the caller is neither the transaction's owner nor a super
// user. Answered as TransactionNotFound, as Pulsar's
// TransactionNotFoundException.
var errTxnNotOwned = errors.New("not the owner of the transaction")

// txnAs is who asks the coordinator for an operation: a client's role,
// checked against the transaction's owner, or the broker itself (a
// transactional send or ack, a timeout, the recovery after a restart),
// which is not checked.
type txnAs struct {
	role  string
	check bool
}

// txnByBroker is the broker asking for itself.
var txnByBroker = txnAs{}

// txnCaller is the connection's role, as the caller of a coordinator
// command.
func (c *conn) txnCaller() txnAs { return txnAs{role: c.role(), check: true} }

// txnOwnerOf is the owner a new transaction records for the caller: its
// role when authentication is on, none otherwise.
func (b *Broker) txnOwnerOf(as txnAs) string {
	if !b.authEnabled() {
		return ""
	}
	return as.role
}

// checkOwnerLocked reports whether as may operate on m; mu is held.
func (c *coordinator) checkOwnerLocked(m *txnMeta, as txnAs) error {
	if !as.check || m.Owner == "" || m.Owner == as.role {
		return nil
	}
	b := c.b
	if b.authEnabled() && b.authzOn() && b.isSuperUser(as.role) {
		return nil
	}
	return fmt.Errorf("%w: Client (%s) is neither the owner of the transaction %s nor a super user",
		errTxnNotOwned, as.role, txnID{Least: m.Least})
}
