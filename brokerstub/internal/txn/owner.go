package txn

import "fmt"

// Transaction ownership (Pulsar's verifyTxnOwnership): with authentication
// on (Config.RecordOwners), a transaction belongs to the role that opened
// it, persisted with the coordinator's state. End, AddPartitions and
// AddSubs from another role are refused with ErrNotOwned (answered as
// TransactionNotFound, as Pulsar refuses them), unless the role is a super
// user (Config.SuperUser). A transaction opened without authentication has
// no owner and anyone may use it. Transactional sends and acks are not
// checked, as in Pulsar.

// Caller is who asks the coordinator for an operation: a client's role,
// checked against the transaction's owner, or the broker itself (a
// transactional send or ack, a timeout, the recovery after a restart),
// which is not checked.
type Caller struct {
	role  string
	check bool
}

// ByBroker is the broker asking for itself.
var ByBroker = Caller{}

// ByRole is a client with role asking (its connection's role, "" when
// anonymous).
func ByRole(role string) Caller { return Caller{role: role, check: true} }

// ownerOf is the owner a new transaction records for as.
func (c *Coordinator) ownerOf(as Caller) string {
	if !c.cfg.RecordOwners {
		return ""
	}
	return as.role
}

// checkOwnerLocked reports whether as may operate on m; mu is held.
func (c *Coordinator) checkOwnerLocked(m *Record, as Caller) error {
	if !as.check || m.Owner == "" || m.Owner == as.role {
		return nil
	}
	if c.cfg.SuperUser != nil && c.cfg.SuperUser(as.role) {
		return nil
	}
	return fmt.Errorf("%w: Client (%s) is neither the owner of the transaction %s nor a super user",
		ErrNotOwned, as.role, m.ID())
}
