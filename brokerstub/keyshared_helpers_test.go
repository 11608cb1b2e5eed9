package brokerstub

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub/internal/keyshared"
	"github.com/pulsargo/sdk/brokerstub/keyorder"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// ksClient is a raw protocol connection for Key_Shared tests: it keeps the
// MESSAGE frames it reads while waiting for other answers, so that tests
// can look at deliveries at well-defined points (after a barrier).
type ksClient struct {
	*rawClient
	b     *Broker
	rid   uint64
	inbox []ksMsg
	// changes holds the ACTIVE_CONSUMER_CHANGE commands read, in order
	// (failover_test.go).
	changes []activeChange
}

// ksMsg is one delivered entry.
type ksMsg struct {
	Consumer uint64
	Pos      Position
	Key      string
	Payload  string
	AckSet   []int64
}

func dialKS(t *testing.T, b *Broker) *ksClient {
	c := dialRaw(t, b)
	c.connect()
	return &ksClient{rawClient: c, b: b, rid: 1000}
}

func (c *ksClient) nextRID() uint64 { c.rid++; return c.rid }

// readUntil reads frames, keeping MESSAGEs in the inbox, until one of type
// want arrives.
func (c *ksClient) readUntil(want proto.BaseCommand_Type) *proto.BaseCommand {
	c.t.Helper()
	for {
		f, err := c.next()
		if err != nil {
			c.t.Fatalf("waiting for %s: %v", want, err)
		}
		switch f.Cmd.GetType() {
		case want:
			return f.Cmd
		case proto.BaseCommand_MESSAGE:
			m := f.Cmd.GetMessage()
			key := f.Meta.GetPartitionKey()
			if f.Meta.OrderingKey != nil {
				key = string(f.Meta.OrderingKey)
			}
			c.inbox = append(c.inbox, ksMsg{Consumer: m.GetConsumerId(), Key: key, Payload: string(f.Payload), AckSet: m.GetAckSet(),
				Pos: Position{Ledger: int64(m.GetMessageId().GetLedgerId()), Entry: int64(m.GetMessageId().GetEntryId())}})
		case proto.BaseCommand_ACTIVE_CONSUMER_CHANGE:
			ch := f.Cmd.GetActiveConsumerChange()
			c.changes = append(c.changes, activeChange{ch.GetConsumerId(), ch.GetIsActive()})
		case proto.BaseCommand_PING:
			c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PONG.Enum(), Pong: &proto.CommandPong{}})
		case proto.BaseCommand_ERROR:
			if want != proto.BaseCommand_ERROR {
				c.t.Fatalf("waiting for %s: %s", want, f.Cmd)
			}
		}
	}
}

// subscribe attaches a Key_Shared consumer; it returns the broker's error,
// or nil on success. permits > 0 sends a FLOW.
func (c *ksClient) subscribe(topic, sub string, id uint64, name string, meta *proto.KeySharedMeta, permits uint32) *proto.CommandError {
	c.t.Helper()
	rid := c.nextRID()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &topic, Subscription: &sub, SubType: proto.CommandSubscribe_Key_Shared.Enum(),
		ConsumerId: &id, RequestId: &rid, ConsumerName: &name, KeySharedMeta: meta,
		InitialPosition: proto.CommandSubscribe_Earliest.Enum()}})
	for {
		f, err := c.next()
		if err != nil {
			c.t.Fatalf("subscribe: %v", err)
		}
		switch f.Cmd.GetType() {
		case proto.BaseCommand_SUCCESS:
			if permits > 0 {
				c.flow(id, permits)
			}
			return nil
		case proto.BaseCommand_ERROR:
			return f.Cmd.GetError()
		}
	}
}

// mustSubscribe is subscribe that fails the test on an error. It returns
// once the broker has handled the consumer's FLOW too (a barrier), so that
// what the test does next sees the consumer's permits.
func (c *ksClient) mustSubscribe(topic string, id uint64, name string, permits uint32) {
	c.t.Helper()
	if e := c.subscribe(topic, "s", id, name, nil, permits); e != nil {
		c.t.Fatalf("subscribe %s: %s", name, e)
	}
	c.barrier(id)
}

func (c *ksClient) flow(id uint64, n uint32) {
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{ConsumerId: &id, MessagePermits: &n}})
}

// ack acknowledges whole entries and waits for the receipt.
func (c *ksClient) ack(id uint64, ps ...Position) {
	c.t.Helper()
	rid := c.nextRID()
	ack := &proto.CommandAck{ConsumerId: &id, AckType: proto.CommandAck_Individual.Enum(), RequestId: &rid}
	for _, p := range ps {
		ack.MessageId = append(ack.MessageId, &proto.MessageIdData{LedgerId: gproto.Uint64(uint64(p.Ledger)), EntryId: gproto.Uint64(uint64(p.Entry))})
	}
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_ACK.Enum(), Ack: ack})
	r := c.readUntil(proto.BaseCommand_ACK_RESPONSE).GetAckResponse()
	require.Nil(c.t, r.Error, "ack: %s", r.GetMessage())
}

// redeliver asks for ps (all pending when empty) to be delivered again.
func (c *ksClient) redeliver(id uint64, ps ...Position) {
	m := &proto.CommandRedeliverUnacknowledgedMessages{ConsumerId: &id}
	for _, p := range ps {
		m.MessageIds = append(m.MessageIds, &proto.MessageIdData{LedgerId: gproto.Uint64(uint64(p.Ledger)), EntryId: gproto.Uint64(uint64(p.Entry))})
	}
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_REDELIVER_UNACKNOWLEDGED_MESSAGES.Enum(), RedeliverUnacknowledgedMessages: m})
}

// closeConsumer closes a consumer and waits for the broker's answer.
func (c *ksClient) closeConsumer(id uint64) {
	c.t.Helper()
	rid := c.nextRID()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_CLOSE_CONSUMER.Enum(), CloseConsumer: &proto.CommandCloseConsumer{ConsumerId: &id, RequestId: &rid}})
	c.readUntil(proto.BaseCommand_SUCCESS)
}

// sync is a barrier: every command sent on this connection before has been
// handled by the topic, and every message dispatched to it meanwhile has
// been read. It returns (and forgets) the messages for consumer id.
func (c *ksClient) sync(id uint64) []ksMsg {
	c.t.Helper()
	c.barrier(id)
	var out, rest []ksMsg
	for _, m := range c.inbox {
		if m.Consumer == id {
			out = append(out, m)
		} else {
			rest = append(rest, m)
		}
	}
	c.inbox = rest
	return out
}

// barrier returns once every command sent on this connection before has
// been handled by the topic (a CONSUMER_STATS round trip through the topic
// goroutine); what arrives meanwhile stays in the inbox.
func (c *ksClient) barrier(id uint64) {
	c.t.Helper()
	rid := c.nextRID()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_CONSUMER_STATS.Enum(), ConsumerStats: &proto.CommandConsumerStats{ConsumerId: &id, RequestId: &rid}})
	c.readUntil(proto.BaseCommand_CONSUMER_STATS_RESPONSE)
}

// ksProducer sends keyed messages on a ksClient.
type ksProducer struct {
	c    *ksClient
	id   uint64
	name string
	seq  uint64
}

func (c *ksClient) producer(topic string, id uint64) *ksProducer {
	c.t.Helper()
	rid := c.nextRID()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: &topic, ProducerId: &id, RequestId: &rid}})
	name := c.readUntil(proto.BaseCommand_PRODUCER_SUCCESS).GetProducerSuccess().GetProducerName()
	return &ksProducer{c: c, id: id, name: name}
}

// send stores a message with metadata md (producer name and sequence id
// filled in) and returns its position.
func (p *ksProducer) sendMeta(md *proto.MessageMetadata, payload string) Position {
	c := p.c
	c.t.Helper()
	seq := p.seq
	p.seq++
	md.ProducerName, md.SequenceId, md.PublishTime = &p.name, &seq, gproto.Uint64(1)
	c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
		ProducerId: &p.id, SequenceId: &seq, NumMessages: gproto.Int32(1)}}, md, []byte(payload))
	id := c.readUntil(proto.BaseCommand_SEND_RECEIPT).GetSendReceipt().GetMessageId()
	return Position{Ledger: int64(id.GetLedgerId()), Entry: int64(id.GetEntryId())}
}

// send stores a message with partition key key.
func (p *ksProducer) Send(key, payload string) Position {
	return p.sendMeta(&proto.MessageMetadata{PartitionKey: &key}, payload)
}

// keysFor returns n keys (from "key-0", "key-1", ...) that the
// consistent-hashing selector gives to consumer want of names, and — when
// joining is not "" — to wantAfter once a consumer named joining is added.
func keysFor(t *testing.T, n int, names []string, want, joining, wantAfter string) []string {
	t.Helper()
	ring := func(names []string) *keyshared.Consistent {
		c := keyshared.NewConsistent(0)
		for i, name := range names {
			require.NoError(t, c.Add(&keyshared.Member{ID: keyshared.ConsumerID(i + 1), Name: name}))
		}
		return c
	}
	all := slices.Clone(names)
	if joining != "" {
		all = append(all, joining)
	}
	before, after := ring(names), ring(all)
	var out []string
	for i := 0; len(out) < n && i < 100000; i++ {
		key := fmt.Sprint("key-", i)
		h := keyshared.StickyKeyHash([]byte(key), before.KeyHashRange())
		b, _ := before.Select(h)
		a, _ := after.Select(h)
		if all[b-1] == want && (joining == "" || all[a-1] == wantAfter) {
			out = append(out, key)
		}
	}
	require.Len(t, out, n, "keys for %s", want)
	return out
}

// positions returns the positions of msgs.
func positions(msgs []ksMsg) []Position {
	out := make([]Position, len(msgs))
	for i, m := range msgs {
		out[i] = m.Pos
	}
	return out
}

// record logs msgs as received by consumer in the checker and fails the
// test on a violation.
func record(t *testing.T, chk *keyorder.Checker, consumer string, msgs []ksMsg) {
	t.Helper()
	for _, m := range msgs {
		require.NoError(t, chk.Received(consumer, m.Key, kid(m.Pos)))
	}
}

func kid(p Position) keyorder.ID { return keyorder.ID{Ledger: p.Ledger, Entry: p.Entry, Batch: -1} }

// waitConsumers waits until the subscription has n consumers (after a
// connection was dropped, the broker detaches its consumers
// asynchronously).
func waitConsumers(t *testing.T, b *Broker, topic string, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		st, err := b.KeyShared(topic, "s")
		return err == nil && len(st.Consumers) == n
	}, 5*time.Second, time.Millisecond)
}

// frameOf decodes an encoded frame, for in-process tests that feed
// handlers directly.
func frameOf(t testing.TB, cmd *proto.BaseCommand, md *proto.MessageMetadata, payload []byte) *wire.Frame {
	var b []byte
	var err error
	if md == nil {
		b, err = wire.AppendCommand(nil, cmd)
	} else {
		b, err = wire.AppendPayloadFrame(nil, cmd, md, payload)
	}
	require.NoError(t, err)
	f, err := wire.DecodeFrame(b, 0)
	require.NoError(t, err)
	return &f
}
