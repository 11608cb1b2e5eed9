package protocol

import (
	"errors"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
	"github.com/pulsargo/sdk/internal/proto"
)

// The transaction coordinator's commands (PIP-31). With
// transactionCoordinatorEnabled off each is refused with CommandError
// NotAllowedError "Transactions are not enabled.", as Pulsar's ServerCnx
// does; otherwise each decodes its command, calls the coordinator
// (internal/txn) and answers with the command's own response, with
// Pulsar's error code when it fails.

// handleTxnCommand dispatches a coordinator command; it reports false for a
// command that is not one.
func (c *Conn) handleTxnCommand(cmd *proto.BaseCommand) bool {
	switch cmd.GetType() {
	case proto.BaseCommand_TC_CLIENT_CONNECT_REQUEST:
		c.handleTcConnect(cmd.GetTcClientConnectRequest())
	case proto.BaseCommand_NEW_TXN:
		c.handleNewTxn(cmd.GetNewTxn())
	case proto.BaseCommand_ADD_PARTITION_TO_TXN:
		c.handleAddPartitionToTxn(cmd.GetAddPartitionToTxn())
	case proto.BaseCommand_ADD_SUBSCRIPTION_TO_TXN:
		c.handleAddSubscriptionToTxn(cmd.GetAddSubscriptionToTxn())
	case proto.BaseCommand_END_TXN:
		c.handleEndTxn(cmd.GetEndTxn())
	default:
		return false
	}
	return true
}

// txnRefused answers a coordinator command when transactions are off.
func (c *Conn) txnRefused(rid uint64) bool {
	if c.b.Eng.TxnEnabled() {
		return false
	}
	c.sendError(rid, proto.ServerError_NotAllowedError, txn.DisabledMsg)
	return true
}

// errFields returns the error and message fields of a response.
func errFields(err error) (*proto.ServerError, *string) {
	if err == nil {
		return nil, nil
	}
	return engine.TxnErrorCode(err).Enum(), Strp(txn.ErrorText(err))
}

func (c *Conn) handleTcConnect(m *proto.CommandTcClientConnectRequest) {
	rid := m.GetRequestId()
	if c.txnRefused(rid) {
		return
	}
	_, err := c.b.Eng.CoordinatorFor(m.GetTcId())
	r := &proto.CommandTcClientConnectResponse{RequestId: &rid}
	r.Error, r.Message = errFields(err)
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_TC_CLIENT_CONNECT_RESPONSE.Enum(), TcClientConnectResponse: r})
}

// handleNewTxn opens a transaction. txn_ttl_seconds is, despite its name, in
// milliseconds: the clients send the timeout in ms and Pulsar's coordinator
// reads it so.
func (c *Conn) handleNewTxn(m *proto.CommandNewTxn) {
	rid := m.GetRequestId()
	if c.txnRefused(rid) {
		return
	}
	r := &proto.CommandNewTxnResponse{RequestId: &rid}
	tc, err := c.b.Eng.CoordinatorFor(m.GetTcId())
	var id txn.ID
	if err == nil {
		ttl := min(m.GetTxnTtlSeconds(), uint64(txn.MaxTimeout/time.Millisecond))
		id, err = tc.NewTxn(c.txnCaller(), time.Duration(ttl)*time.Millisecond)
	}
	if errors.Is(err, txn.ErrMaxActive) {
		c.log.Warn("NEW_TXN over maxActiveTransactionsPerCoordinator: not answered, as Pulsar", "request", rid)
		return // as Pulsar's ServerCnx (txn.ErrMaxActive)
	}
	if err == nil {
		id.Most = m.GetTcId()
		r.TxnidMostBits, r.TxnidLeastBits = &id.Most, &id.Least
	}
	r.Error, r.Message = errFields(err)
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_NEW_TXN_RESPONSE.Enum(), NewTxnResponse: r})
}

func (c *Conn) handleAddPartitionToTxn(m *proto.CommandAddPartitionToTxn) {
	rid := m.GetRequestId()
	if c.txnRefused(rid) {
		return
	}
	id, _ := txn.IDOf(m.TxnidMostBits, m.TxnidLeastBits)
	tc, err := c.b.Eng.CoordinatorFor(id.Most)
	if err == nil {
		err = tc.AddPartitions(id, c.txnCaller(), m.GetPartitions())
	}
	r := &proto.CommandAddPartitionToTxnResponse{RequestId: &rid, TxnidMostBits: &id.Most, TxnidLeastBits: &id.Least}
	r.Error, r.Message = errFields(err)
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_ADD_PARTITION_TO_TXN_RESPONSE.Enum(), AddPartitionToTxnResponse: r})
}

func (c *Conn) handleAddSubscriptionToTxn(m *proto.CommandAddSubscriptionToTxn) {
	rid := m.GetRequestId()
	if c.txnRefused(rid) {
		return
	}
	id, _ := txn.IDOf(m.TxnidMostBits, m.TxnidLeastBits)
	tc, err := c.b.Eng.CoordinatorFor(id.Most)
	if err == nil {
		subs := make([]txn.Sub, 0, len(m.GetSubscription()))
		for _, s := range m.GetSubscription() {
			subs = append(subs, txn.Sub{Topic: s.GetTopic(), Sub: s.GetSubscription()})
		}
		err = tc.AddSubs(id, c.txnCaller(), subs)
	}
	r := &proto.CommandAddSubscriptionToTxnResponse{RequestId: &rid, TxnidMostBits: &id.Most, TxnidLeastBits: &id.Least}
	r.Error, r.Message = errFields(err)
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_ADD_SUBSCRIPTION_TO_TXN_RESPONSE.Enum(), AddSubscriptionToTxnResponse: r})
}

// handleEndTxn commits or aborts; it answers once both phases are done.
func (c *Conn) handleEndTxn(m *proto.CommandEndTxn) {
	rid := m.GetRequestId()
	if c.txnRefused(rid) {
		return
	}
	id, _ := txn.IDOf(m.TxnidMostBits, m.TxnidLeastBits)
	tc, err := c.b.Eng.CoordinatorFor(id.Most)
	if err == nil {
		err = tc.End(id, c.txnCaller(), m.GetTxnAction() == proto.TxnAction_COMMIT)
	}
	r := &proto.CommandEndTxnResponse{RequestId: &rid, TxnidMostBits: &id.Most, TxnidLeastBits: &id.Least}
	r.Error, r.Message = errFields(err)
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_END_TXN_RESPONSE.Enum(), EndTxnResponse: r})
}

// txnCaller is the connection's role, as the caller of a coordinator
// command (checked against the transaction's owner).
func (c *Conn) txnCaller() txn.Caller { return txn.ByRole(c.Role()) }

// handleTxnAck holds a transactional ACK pending and answers it with the
// transaction id in ACK_RESPONSE, as Pulsar does.
func (c *Conn) handleTxnAck(cs *engine.Consumer, m *proto.CommandAck, id txn.ID) {
	ok := cs.TxnAck(id, m, c)
	if !ok {
		c.AnswerAck(m, proto.ServerError_ServiceNotReady, "topic is being unloaded")
	}
}
