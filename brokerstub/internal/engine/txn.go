package engine

import (
	"errors"
	"fmt"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
	"github.com/pulsargo/sdk/internal/proto"
)

// Transactions (PIP-31) live in internal/txn: the coordinator
// (txn.Coordinator) and each persistent topic's buffer and pending acks
// (txn.Buffer). The root wires them: this file starts and stops the
// coordinator and gives it the topics (txnTopics); txn_handlers.go answers
// the coordinator's commands; txn_topic.go and txn_ack.go call a topic's
// buffer on the topic's goroutine; admin_transactions.go renders the
// coordinator's view.

// StartCoordinator loads the coordinator's state when transactions are
// enabled: open transactions get their timeouts again, committing and
// aborting ones are finished before the broker serves.
func (b *Engine) StartCoordinator() error {
	if !b.cfg.TransactionCoordinatorEnabled {
		b.tc.Store(nil)
		return nil
	}
	// As a standalone with the coordinator on: the assign topic exists with
	// one partition per coordinator, so clients find coordinator 0.
	if b.PartitionCount(txn.AssignTopic) != txn.Coordinators {
		if err := b.st.SetPartitions(txn.AssignTopic, txn.Coordinators); err != nil {
			return fmt.Errorf("brokerstub: create %s: %w", txn.AssignTopic, err)
		}
	}
	cfg := txn.Config{
		Clock:        b.cfg.Clock,
		Topics:       txnTopics{b},
		MaxActive:    b.cfg.Gates.MaxActiveTransactionsPerCoordinator,
		RecordOwners: b.AuthEnabled(),
		SuperUser:    func(role string) bool { return b.AuthEnabled() && b.AuthzOn() && b.IsSuperUser(role) },
		Log:          b.log,
	}
	if kv, ok := b.st.(store.MetaStore); ok {
		cfg.Store = kv
	}
	c, err := txn.Load(cfg)
	if err != nil {
		return fmt.Errorf("brokerstub: %w", err)
	}
	b.tc.Store(c)
	c.Recover()
	return nil
}

// stopCoordinator stops the timeouts and waits for those running.
func (b *Engine) stopCoordinator() {
	if c := b.tc.Load(); c != nil {
		c.Close()
	}
}

// CoordinatorFor returns coordinator tcID, or the error Pulsar answers.
func (b *Engine) CoordinatorFor(tcID uint64) (*txn.Coordinator, error) {
	c := b.tc.Load()
	if c == nil {
		return nil, txn.ErrDisabled
	}
	if err := txn.Check(tcID); err != nil {
		return nil, err
	}
	return c, nil
}

// TxnErrorCode maps a transaction error to the ServerError Pulsar answers.
func TxnErrorCode(err error) proto.ServerError {
	switch {
	case errors.Is(err, txn.ErrDisabled), errors.Is(err, txn.ErrNotAllowed):
		return proto.ServerError_NotAllowedError
	case errors.Is(err, txn.ErrTCNotFound):
		return proto.ServerError_TransactionCoordinatorNotFound
	case errors.Is(err, txn.ErrNotFound), errors.Is(err, txn.ErrNotOwned):
		return proto.ServerError_TransactionNotFound
	case errors.Is(err, txn.ErrStatus):
		return proto.ServerError_InvalidTxnStatus
	case errors.Is(err, txn.ErrConflict):
		return proto.ServerError_TransactionConflict
	case errors.Is(err, ErrTopicClosed), errors.Is(err, txn.ErrClosed):
		return proto.ServerError_ServiceNotReady
	}
	return proto.ServerError_UnknownError
}

// txnTopics is the broker's topics as the coordinator reaches them
// (txn.Topics): each call runs on the topic's goroutine.
type txnTopics struct{ b *Engine }

// EndOnPartition ends id on topic (txn_topic.go).
func (tt txnTopics) EndOnPartition(partition string, id txn.ID, commit bool) error {
	return tt.onTopic(partition, func(t *Topic) { t.txnEnd(id, commit) })
}

// EndOnSubscription ends id on a subscription of topic (txn_ack.go).
func (tt txnTopics) EndOnSubscription(topicName, sub string, id txn.ID, commit bool, acks []txn.Ack) error {
	return tt.onTopic(topicName, func(t *Topic) { t.txnEndSub(sub, id, commit, acks) })
}

// InBuffer is what topic's buffer knows of id; nothing for a topic that
// is not loaded or does not exist.
func (tt txnTopics) InBuffer(topic string, id txn.ID) txn.InBufferStats {
	var out txn.InBufferStats
	name, err := ParseTopic(topic)
	if err != nil {
		return out
	}
	t, err := tt.b.GetTopic(name, false)
	if err != nil {
		return out
	}
	_ = t.Call(func() { out = t.Txn.InBuffer(id) })
	return out
}

// onTopic runs f on the named topic's goroutine; a topic that does not
// exist (deleted, or never created) has nothing to end.
func (tt txnTopics) onTopic(full string, f func(*Topic)) error {
	name, err := ParseTopic(full)
	if err != nil || tt.b.PartitionCountOf(name) > 0 {
		return nil // never a topic, or a partitioned one: nothing stored on it
	}
	t, err := tt.b.GetTopic(name, false)
	if errors.Is(err, ErrTopicNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return t.Call(func() { f(t) })
}

// TxnInBuffer is what topic's transaction buffer knows of id, for the
// admin API's transactionInBufferStats.
func (b *Engine) TxnInBuffer(topic string, id txn.ID) txn.InBufferStats {
	return txnTopics{b}.InBuffer(topic, id)
}
