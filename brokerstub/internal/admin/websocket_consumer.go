package admin

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"

	"github.com/pulsargo/sdk/brokerstub/internal/websocket"
	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

// wsMaxReceiverQueue caps receiverQueueSize, as Pulsar's WebSocket
// consumer does (min(receiverQueueSize, 1000)); it is also the default.
const wsMaxReceiverQueue = 1000

// wsDefaultNackDelay is the Java consumer's negativeAckRedeliveryDelay.
const wsDefaultNackDelay = time.Minute

// WsConsumerMessage is a message delivered to a WebSocket consumer or
// reader (Pulsar's ConsumerMessage).
type WsConsumerMessage struct {
	MessageID       string            `json:"messageId"`
	Payload         string            `json:"payload"`
	Properties      map[string]string `json:"properties"`
	PublishTime     string            `json:"publishTime"`
	RedeliveryCount uint32            `json:"redeliveryCount"`
	Key             string            `json:"key,omitempty"`
	EventTime       string            `json:"eventTime,omitempty"`
}

// wsConsumerCommand is what a WebSocket consumer sends (Pulsar's
// ConsumerCommand): an ack ({"messageId": ...}, type absent or "ack"),
// "negativeAcknowledge", "permit" (pull mode), "unsubscribe" or
// "isEndOfTopic".
type wsConsumerCommand struct {
	Type           string `json:"type"`
	MessageID      string `json:"messageId"`
	PermitMessages int    `json:"permitMessages"`
}

// wsEntry names an entry of one of the session's partitions.
type wsEntry struct {
	part          int // index of the binary consumer
	ledger, entry uint64
}

// wsBatch tracks the acks of the messages delivered from one entry; the
// entry is acked to the broker when all of them are (as the Java consumer
// does without batch-index acks).
type wsBatch struct {
	acked []bool // by batch index; nil for an entry that is no batch
	left  int
}

// wsConsumer is the consumer side of a session: one binary consumer per
// partition (one for a topic without partitions).
type wsConsumer struct {
	s         *wsSession
	reader    bool
	queue     int // receiverQueueSize
	pull      bool
	nackDelay time.Duration
	parts     int           // 0: not partitioned
	start     *wsStartAfter // a reader's exclusive start id

	mu         sync.Mutex
	open       map[wsEntry]*wsBatch // delivered, not yet acked
	endOfTopic []bool               // by binary consumer
	// Pull mode: permits the client gave and not yet passed to the
	// broker (credit), permits passed and not yet used (inflight), and
	// messages delivered and not yet acked (unacked); credit goes to the
	// broker only while inflight+unacked stay within queue, as Pulsar's
	// WebSocket consumer stops at its pending-message limit.
	credit, inflight, unacked int64
}

// pump passes pull-mode credit to the broker, within the queue.
func (c *wsConsumer) pump() {
	c.mu.Lock()
	g := min(c.credit, int64(c.queue)-c.inflight-c.unacked)
	if g <= 0 {
		c.mu.Unlock()
		return
	}
	c.credit -= g
	c.inflight += g
	c.mu.Unlock()
	c.flow(0, int(g))
}

// wsStartAfter is a reader's start message id: messages at or before it
// are skipped (Pulsar's readers start after the given id).
type wsStartAfter struct {
	ledger, entry uint64
	batch         int32
}

// serveConsumer creates the session's consumer (or reader) as Pulsar's
// ConsumerHandler and ReaderHandler and then delivers messages.
func (s *wsSession) serveConsumer(w http.ResponseWriter, reader bool) {
	c := &wsConsumer{s: s, reader: reader, queue: wsMaxReceiverQueue, nackDelay: wsDefaultNackDelay, open: map[wsEntry]*wsBatch{}}
	bad := func(format string, args ...any) {
		http.Error(w, "Invalid query params: "+fmt.Sprintf(format, args...), http.StatusBadRequest)
	}
	if v := s.param("receiverQueueSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			bad("receiverQueueSize %q", v)
			return
		}
		c.queue = min(n, wsMaxReceiverQueue)
	}
	subType := proto.CommandSubscribe_Exclusive
	startID := &proto.MessageIdData{LedgerId: gproto.Uint64(math.MaxInt64), EntryId: gproto.Uint64(math.MaxInt64)} // latest
	if reader {
		s.sub = "reader-" + randomHex(5)
		if v := s.param("messageId"); v != "" && v != "latest" {
			if v == "earliest" {
				startID = &proto.MessageIdData{LedgerId: gproto.Uint64(math.MaxUint64), EntryId: gproto.Uint64(math.MaxUint64)}
			} else {
				id, err := DecodeWSMessageID(v)
				if err != nil {
					bad("messageId %q: %v", v, err)
					return
				}
				startID = &proto.MessageIdData{LedgerId: id.LedgerId, EntryId: id.EntryId}
				c.start = &wsStartAfter{ledger: id.GetLedgerId(), entry: id.GetEntryId(), batch: -1}
				if id.BatchIndex != nil {
					c.start.batch = id.GetBatchIndex()
				}
			}
		}
	} else {
		if v := s.param("subscriptionType"); v != "" {
			t, ok := proto.CommandSubscribe_SubType_value[v]
			if !ok {
				bad("Invalid subscriptionType %s", v)
				return
			}
			subType = proto.CommandSubscribe_SubType(t)
		}
		c.pull = s.param("pullMode") == "true"
		if v := s.param("negativeAckRedeliveryDelay"); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				bad("negativeAckRedeliveryDelay %q", v)
				return
			}
			c.nackDelay = time.Duration(n) * time.Millisecond
		}
	}
	if !s.authorizeWS(w, engine.ActConsume) {
		return
	}
	c.parts = s.b.Eng.PartitionCountOf(s.name)
	if c.pull && c.parts > 0 {
		bad("pullMode on a partitioned topic is not served by brokerstub")
		return
	}
	what := "Failed to subscribe"
	if reader {
		what = "Failed to create reader"
	}
	bin, err := s.b.dialWS(s.role, c.onFrame, func(error) { s.close(websocket.CloseInternalError, "broker connection closed") })
	if err != nil {
		createError(w, what, err)
		return
	}
	s.setBin(bin)
	topics := []string{s.name.Full}
	if c.parts > 0 {
		topics = topics[:0]
		for i := range c.parts {
			topics = append(topics, engine.PartitionName(s.name.Full, i))
		}
	}
	c.endOfTopic = make([]bool, len(topics))
	name := s.param("consumerName")
	if reader {
		name = s.param("readerName")
	}
	for i, t := range topics {
		_, err := bin.call(func(rid uint64) *proto.BaseCommand {
			cid := uint64(i)
			sub := &proto.CommandSubscribe{Topic: &t, Subscription: &s.sub, SubType: subType.Enum(), ConsumerId: &cid, RequestId: &rid}
			if name != "" {
				sub.ConsumerName = &name
			}
			if v := s.param("priorityLevel"); v != "" && !reader {
				if n, err := strconv.Atoi(v); err == nil {
					sub.PriorityLevel = gproto.Int32(int32(n))
				}
			}
			if reader {
				sub.Durable = gproto.Bool(false)
				sub.StartMessageId = startID
			}
			return &proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: sub}
		}, false)
		if err != nil {
			bin.close()
			createError(w, what, err)
			return
		}
	}
	if !s.upgrade(w) {
		bin.close()
		return
	}
	if !c.pull {
		for i := range topics {
			c.flow(i, c.queue)
		}
	}
	s.run(c.command)
}

// flow gives binary consumer i n more permits.
func (c *wsConsumer) flow(i, n int) {
	if n <= 0 {
		return
	}
	cid, k := uint64(i), uint32(min(n, math.MaxInt32))
	_ = c.s.bin.write(&proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{ConsumerId: &cid, MessagePermits: &k}}, nil, nil)
}

// command handles what the client sent.
func (c *wsConsumer) command(raw []byte) {
	var m wsConsumerCommand
	if err := json.Unmarshal(raw, &m); err != nil {
		c.s.close(websocket.CloseInternalError, "Failed to deserialize from JSON")
		return
	}
	switch m.Type {
	case "", "ack":
		c.ack(m.MessageID, false)
	case "negativeAcknowledge":
		c.ack(m.MessageID, true)
	case "permit":
		if c.pull && m.PermitMessages > 0 {
			c.mu.Lock()
			c.credit = min(c.credit+int64(m.PermitMessages), math.MaxInt32)
			c.mu.Unlock()
			c.pump()
		}
	case "isEndOfTopic":
		c.mu.Lock()
		end := len(c.endOfTopic) > 0
		for _, e := range c.endOfTopic {
			end = end && e
		}
		c.mu.Unlock()
		_ = c.s.Send(map[string]bool{"endOfTopic": end})
	case "unsubscribe":
		if c.reader {
			return
		}
		for i := range c.endOfTopic {
			if _, err := c.s.bin.call(func(rid uint64) *proto.BaseCommand {
				cid := uint64(i)
				return &proto.BaseCommand{Type: proto.BaseCommand_UNSUBSCRIBE.Enum(), Unsubscribe: &proto.CommandUnsubscribe{ConsumerId: &cid, RequestId: &rid}}
			}, false); err != nil {
				c.s.b.Eng.Logger().Info("websocket unsubscribe failed", "topic", c.s.name.Full, "subscription", c.s.sub, "err", err)
				return
			}
		}
		c.s.close(websocket.CloseNormal, "unsubscribed")
	default:
		c.s.b.Eng.Logger().Info("websocket consumer: unknown command type", "type", m.Type)
	}
}

// ack acknowledges (or negatively acknowledges) a delivered message. A
// reader's acks only free room for more messages, as Pulsar's.
func (c *wsConsumer) ack(b64 string, nack bool) {
	id, err := DecodeWSMessageID(b64)
	if err != nil {
		c.s.close(websocket.CloseInternalError, "Failed to deserialize message id")
		return
	}
	part := 0
	if c.parts > 0 {
		part = int(id.GetPartition())
		if part < 0 || part >= c.parts {
			return
		}
	}
	key := wsEntry{part: part, ledger: id.GetLedgerId(), entry: id.GetEntryId()}
	c.mu.Lock()
	bt := c.open[key]
	done := false
	freed := 1 // messages this frees room for
	switch {
	case bt == nil:
		c.mu.Unlock()
		return // not delivered, or acked already
	case nack:
		// The whole entry comes again, its other messages with it.
		delete(c.open, key)
		done, freed = true, bt.left
	case bt.acked == nil:
		delete(c.open, key)
		done = true
	default:
		i := int(id.GetBatchIndex())
		if i < 0 || i >= len(bt.acked) || bt.acked[i] {
			c.mu.Unlock()
			return
		}
		bt.acked[i] = true
		if bt.left--; bt.left == 0 {
			delete(c.open, key)
			done = true
		}
	}
	c.mu.Unlock()
	cid := uint64(part)
	pos := &proto.MessageIdData{LedgerId: &key.ledger, EntryId: &key.entry}
	switch {
	case nack:
		c.s.b.Cfg.Clock.AfterFunc(c.nackDelay, func() {
			_ = c.s.bin.write(&proto.BaseCommand{Type: proto.BaseCommand_REDELIVER_UNACKNOWLEDGED_MESSAGES.Enum(),
				RedeliverUnacknowledgedMessages: &proto.CommandRedeliverUnacknowledgedMessages{ConsumerId: &cid, MessageIds: []*proto.MessageIdData{pos}}}, nil, nil)
		})
	case done && !c.reader:
		_ = c.s.bin.write(&proto.BaseCommand{Type: proto.BaseCommand_ACK.Enum(), Ack: &proto.CommandAck{
			ConsumerId: &cid, AckType: proto.CommandAck_Individual.Enum(), MessageId: []*proto.MessageIdData{pos}}}, nil, nil)
	}
	if !c.pull {
		c.flow(part, freed)
		return
	}
	c.mu.Lock()
	c.unacked = max(c.unacked-int64(freed), 0)
	c.mu.Unlock()
	c.pump()
}

// DecodeWSMessageID reads a base64 MessageIdData.
func DecodeWSMessageID(s string) (*proto.MessageIdData, error) {
	if len(s) > 4096 {
		return nil, fmt.Errorf("message id of %d characters", len(s))
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	id := &proto.MessageIdData{}
	if err := gproto.Unmarshal(b, id); err != nil {
		return nil, err
	}
	return id, nil
}

// wsTime formats a time in milliseconds as Pulsar's WebSocket API does
// (ISO 8601 with milliseconds).
func wsTime(ms uint64) string {
	return time.UnixMilli(int64(ms)).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

func wsProps(kvs []*proto.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = kv.GetValue()
	}
	return m
}

// randomHex returns n random bytes in hex (a reader's subscription name,
// "reader-" and ten hex digits as the Java reader's).
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
