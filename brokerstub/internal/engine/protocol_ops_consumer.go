package engine

// The operations the binary protocol (internal/protocol) asks of a
// consumer: subscribe, flow, ack, redeliver, seek, last message id,
// stats, unsubscribe, close. Each runs on the goroutine of the consumer's
// topic, so that the protocol reads and writes no field of a topic, a
// subscription or a consumer; answers that must go out in the topic's
// turn are queued through the consumer's peer or a reply function.

import (
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/schema"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
	"github.com/pulsargo/sdk/internal/proto"
)

// NewConsumer is the consumer SUBSCRIBE m asks for, attached through pr;
// it is not yet subscribed (AttachConsumer).
func NewConsumer(pr peer, m *proto.CommandSubscribe) *Consumer {
	return &Consumer{
		id: m.GetConsumerId(), name: m.GetConsumerName(), peer: pr,
		typ: m.GetSubType(), priority: m.GetPriorityLevel(), epoch: m.GetConsumerEpoch(),
		pending:   map[ledger.Position]PendingEntry{},
		keyShared: m.GetKeySharedMeta(),
		// AUTO_CONSUME consumers do not make a topic active for schemas.
		autoConsume: m.GetSchema().GetType() == proto.Schema_Type(schema.AutoConsume),
	}
}

// ID is the consumer's id on its connection.
func (cs *Consumer) ID() uint64 { return cs.id }

// NonPersistent reports whether the consumer's topic is non-persistent.
func (cs *Consumer) NonPersistent() bool { return cs.sub.t.np != nil }

// AttachConsumer subscribes cs as SUBSCRIBE m asks, on the topic
// goroutine, and answers the client; it reports whether cs was attached,
// or an error when the topic stopped (then nothing was answered).
func (t *Topic) AttachConsumer(cs *Consumer, m *proto.CommandSubscribe) (attached bool, err error) {
	err = t.Call(func() {
		if attached = t.Subscribe(cs, m); attached {
			t.noteConsumer(cs, m)
		}
	})
	return attached, err
}

// AddPermits gives cs n more permits (FLOW) and dispatches to it, unless
// it has closed. It does not wait.
func (cs *Consumer) AddPermits(n int64) {
	t := cs.sub.t
	t.Do(func() {
		if cs.closed {
			return
		}
		cs.Permits += n
		t.noteFlow(cs)
		cs.sub.Dispatch()
	})
}

// AckAnswerer answers a consumer's ACKs: the connection it is attached
// through. msg "" means success.
type AckAnswerer interface {
	AnswerAck(m *proto.CommandAck, code proto.ServerError, msg string)
}

// Ack applies ACK m of cs and persists the cursor, then answers it
// through to on the topic goroutine. It reports false if the topic has
// stopped (nothing was answered).
func (cs *Consumer) Ack(m *proto.CommandAck, to AckAnswerer) bool {
	return cs.sub.t.Do(func() {
		code, msg := cs.sub.Ack(cs, m)
		cs.sub.persist(false)
		to.AnswerAck(m, code, msg)
		if msg == "" {
			cs.sub.Dispatch()
		}
	})
}

// TxnAck holds ACK m of cs pending in transaction id (txn_ack.go), then
// answers it through to on the topic goroutine. It reports false if the
// topic has stopped (nothing was answered).
func (cs *Consumer) TxnAck(id txn.ID, m *proto.CommandAck, to AckAnswerer) bool {
	return cs.sub.t.Do(func() {
		if err := cs.sub.txnAck(id, m); err != nil {
			to.AnswerAck(m, TxnErrorCode(err), txn.ErrorText(err))
			return
		}
		to.AnswerAck(m, 0, "")
	})
}

// Redeliver puts back what REDELIVER_UNACKNOWLEDGED_MESSAGES m names (all
// of cs's pending entries when it names none) and dispatches again,
// taking m's consumer epoch. It does not wait.
func (cs *Consumer) Redeliver(m *proto.CommandRedeliverUnacknowledgedMessages) {
	var only []ledger.Position
	for _, id := range m.GetMessageIds() {
		only = append(only, posOf(id))
	}
	all := len(m.GetMessageIds()) == 0
	cs.sub.t.Do(func() {
		if cs.closed {
			return
		}
		if m.ConsumerEpoch != nil {
			cs.epoch = m.GetConsumerEpoch()
		}
		if all {
			cs.sub.requeue(cs, nil)
		} else {
			cs.sub.requeue(cs, only)
		}
		cs.sub.Dispatch()
	})
}

// Seek resets cs's subscription to SEEK m's message id or publish time
// and, as Pulsar does, disconnects its consumers so that they reconnect
// and read from there; done is called on the topic goroutine once the
// cursor is reset. It returns an error when the topic stopped. A
// persistent topic's only (NonPersistent).
func (cs *Consumer) Seek(m *proto.CommandSeek, done func()) error {
	t := cs.sub.t
	return t.Call(func() {
		s := cs.sub
		var pos ledger.Position
		var ackSet []int64
		if id := m.GetMessageId(); id != nil {
			pos = t.seekPosition(id)
			if !t.b.cfg.DisableBatchIndexAck {
				ackSet = id.GetAckSet()
			}
		} else {
			pos = t.Led.FindByPublishTime(m.GetMessagePublishTime())
		}
		s.disconnectAll(true)
		s.Reset(pos, ackSet)
		s.persist(false)
		done()
	})
}

// LastMessageID answers GET_LAST_MESSAGE_ID request rid of cs on the
// topic goroutine: answer gets the topic's last message id and, on a
// persistent topic, the subscription's mark-delete position, as Pulsar's
// ServerCnx since 2.8. It returns an error when the topic stopped.
func (cs *Consumer) LastMessageID(rid uint64, answer func(*proto.CommandGetLastMessageIdResponse)) error {
	t := cs.sub.t
	return t.Call(func() {
		resp := &proto.CommandGetLastMessageIdResponse{RequestId: &rid, LastMessageId: t.lastMessageIDFor(cs)}
		if t.name.Domain == "persistent" {
			resp.ConsumerMarkDeletePosition = t.markDeleteID(cs.sub.Cur.MarkDelete())
		}
		answer(resp)
	})
}

// AnswerStats answers CONSUMER_STATS request rid of cs on the topic
// goroutine: its name, permits, unacknowledged entries and type.
func (cs *Consumer) AnswerStats(rid uint64) {
	_ = cs.sub.t.Call(func() {
		permits := uint64(max(cs.Permits, 0))
		unacked := uint64(len(cs.pending))
		typ := cs.typ.String()
		cs.peer.Send(&proto.BaseCommand{Type: proto.BaseCommand_CONSUMER_STATS_RESPONSE.Enum(), ConsumerStatsResponse: &proto.CommandConsumerStatsResponse{
			RequestId: &rid, ConsumerName: &cs.name, AvailablePermits: &permits, UnackedMessages: &unacked, Type: &typ}})
	})
}

// Unsubscribe deletes cs's subscription (UNSUBSCRIBE), closing its other
// consumers when force, and its stored cursor when durable. It returns
// ConsumerBusy when the subscription has other consumers and not force,
// PersistenceError when the cursor could not be deleted (msg "" for
// success), or an error when the topic stopped.
func (cs *Consumer) Unsubscribe(force bool) (code proto.ServerError, msg string, err error) {
	t := cs.sub.t
	err = t.Call(func() {
		s := cs.sub
		if len(s.Consumers) > 1 && !force {
			code, msg = proto.ServerError_ConsumerBusy, "subscription "+s.name+" has other consumers"
			return
		}
		for _, other := range s.Consumers {
			if other != cs {
				other.closed = true
				other.peer.Send(closeConsumerCmd(other.id))
			}
		}
		s.Consumers = nil
		cs.closed = true
		delete(t.Subs, s.name)
		if s.durable {
			if err := t.b.st.DeleteCursor(t.name.Full, s.name); err != nil {
				code, msg = proto.ServerError_PersistenceError, err.Error()
			}
		}
	})
	return code, msg, err
}

// Close takes cs off its subscription for CLOSE_CONSUMER and waits until
// it is.
func (cs *Consumer) Close() { _ = cs.sub.t.Call(func() { cs.sub.removeConsumer(cs) }) }

// Detach takes cs off its subscription after its connection closed,
// without waiting.
func (cs *Consumer) Detach() { cs.sub.t.removeConsumer(cs) }
