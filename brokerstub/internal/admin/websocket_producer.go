package admin

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
	gproto "google.golang.org/protobuf/proto"
)

// WebSocket error codes of Pulsar's WebSocketError, in a producer's
// "send-error:<code>" result.
const (
	wsErrDeserialize = 3 // FailedToDeserializeFromJSON
	wsErrPayload     = 7 // PayloadEncodingError
	wsErrUnknown     = 8 // UnknownError
)

// wsDefaultMaxPending is the pending-message limit of a WebSocket
// producer without maxPendingMessages (the Java producer's default); past
// it a message is refused at once, as Pulsar's WebSocket producer does
// (blockIfQueueFull=false).
const wsDefaultMaxPending = 1000

// wsProducerMessage is a message a WebSocket producer sends (Pulsar's
// ProducerMessage).
type wsProducerMessage struct {
	Payload             *string           `json:"payload"`
	Properties          map[string]string `json:"properties"`
	Context             string            `json:"context"`
	Key                 *string           `json:"key"`
	ReplicationClusters []string          `json:"replicationClusters"`
	EventTime           string            `json:"eventTime"`
	DeliverAt           int64             `json:"deliverAt"`
	DeliverAfterMs      int64             `json:"deliverAfterMs"`
}

// WsProducerAck answers a message (Pulsar's ProducerAck).
type WsProducerAck struct {
	Result    string `json:"result"`
	ErrorMsg  string `json:"errorMsg,omitempty"`
	MessageID string `json:"messageId,omitempty"`
	Context   string `json:"context,omitempty"`
}

// wsProducer is the producer side of a session: one binary producer per
// partition (one for a topic without partitions).
type wsProducer struct {
	s          *wsSession
	name       string
	parts      int // 0: not partitioned
	single     int // the partition of messages without a key
	maxPending int

	mu           sync.Mutex
	nextSeq      uint64
	pending      map[uint64]wsPending // by sequence id
	pendingBytes int64                // payload bytes in pending
}

// wsPending is a message sent and not yet answered.
type wsPending struct {
	ctx  string
	size int64
}

// wsMemoryLimit bounds the payload bytes a WebSocket producer has in
// flight, as the Java client's default memoryLimitBytes (64 MiB) bounds
// the producer of Pulsar's WebSocket service; past it a message is
// refused at once ("Client memory buffer is full").
const wsMemoryLimit = 64 << 20

// wsMessageOverhead is what a pending message costs beyond its payload
// (its SEND frame and bookkeeping), counted against wsMemoryLimit.
const wsMessageOverhead = 256

// serveProducer creates the session's producer as Pulsar's ProducerHandler
// (batching off, single-partition routing, the query's producerName,
// initialSequenceId, maxPendingMessages) and then publishes each message.
func (s *wsSession) serveProducer(w http.ResponseWriter) {
	if !s.authorizeWS(w, engine.ActProduce) {
		return
	}
	p := &wsProducer{s: s, name: s.param("producerName"), maxPending: wsDefaultMaxPending, pending: map[uint64]wsPending{}}
	if v := s.param("maxPendingMessages"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			http.Error(w, "Invalid query params: maxPendingMessages "+strconv.Quote(v), http.StatusBadRequest)
			return
		}
		p.maxPending = n
	}
	if v := s.param("initialSequenceId"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			http.Error(w, "Invalid query params: initialSequenceId "+strconv.Quote(v), http.StatusBadRequest)
			return
		}
		p.nextSeq = uint64(n + 1)
	}
	if v := s.param("compressionType"); v != "" && proto.CompressionType_value[v] == 0 && v != "NONE" {
		http.Error(w, "Invalid query params: Invalid compressionType "+v, http.StatusBadRequest)
		return
	}
	bin, err := s.b.dialWS(s.role, p.onFrame, func(error) { s.close(1011, "broker connection closed") })
	if err != nil {
		createError(w, "Failed to create producer", err)
		return
	}
	s.setBin(bin)
	p.parts = s.b.Eng.PartitionCountOf(s.name)
	topics := []string{s.name.Full}
	if p.parts > 0 {
		topics = topics[:0]
		for i := range p.parts {
			topics = append(topics, engine.PartitionName(s.name.Full, i))
		}
		p.single = rand.IntN(p.parts)
	}
	for i, t := range topics {
		r, err := bin.call(func(rid uint64) *proto.BaseCommand {
			pid := uint64(i)
			c := &proto.CommandProducer{Topic: &t, ProducerId: &pid, RequestId: &rid}
			if p.name != "" {
				c.ProducerName = &p.name
			}
			return &proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: c}
		}, false)
		if err != nil {
			bin.close()
			createError(w, "Failed to create producer", err)
			return
		}
		ps := r.GetProducerSuccess()
		p.name = ps.GetProducerName()
		if last := ps.GetLastSequenceId(); last >= 0 && uint64(last+1) > p.nextSeq {
			p.nextSeq = uint64(last + 1)
		}
	}
	if !s.upgrade(w) {
		bin.close()
		return
	}
	s.run(p.publish)
}

// publish sends one message the client wrote.
func (p *wsProducer) publish(raw []byte) {
	var m wsProducerMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		p.ack(WsProducerAck{Result: sendErr(wsErrDeserialize), ErrorMsg: err.Error()})
		return
	}
	if m.Payload == nil {
		p.ack(WsProducerAck{Result: sendErr(wsErrPayload), ErrorMsg: "payload is missing", Context: m.Context})
		return
	}
	payload, err := base64.StdEncoding.DecodeString(*m.Payload)
	if err != nil {
		p.ack(WsProducerAck{Result: sendErr(wsErrPayload), ErrorMsg: "Invalid Base64 message-payload error=" + err.Error(), Context: m.Context})
		return
	}
	now := p.s.b.Cfg.Clock.Now()
	md := &proto.MessageMetadata{PublishTime: gproto.Uint64(uint64(now.UnixMilli()))}
	for k, v := range m.Properties {
		md.Properties = append(md.Properties, &proto.KeyValue{Key: gproto.String(k), Value: gproto.String(v)})
	}
	part := p.single
	if m.Key != nil {
		md.PartitionKey = m.Key
		if p.parts > 0 {
			part = int(javaStringHash(*m.Key) % uint32(p.parts))
		}
	}
	if m.EventTime != "" {
		t, err := time.Parse(time.RFC3339Nano, m.EventTime)
		if err != nil {
			p.ack(WsProducerAck{Result: sendErr(wsErrPayload), ErrorMsg: err.Error(), Context: m.Context})
			return
		}
		md.EventTime = gproto.Uint64(uint64(t.UnixMilli()))
	}
	md.ReplicateTo = m.ReplicationClusters
	switch {
	case m.DeliverAt > 0:
		md.DeliverAtTime = gproto.Int64(m.DeliverAt)
	case m.DeliverAfterMs > 0:
		md.DeliverAtTime = gproto.Int64(now.UnixMilli() + m.DeliverAfterMs)
	}
	p.mu.Lock()
	if len(p.pending) >= p.maxPending {
		p.mu.Unlock()
		p.ack(WsProducerAck{Result: sendErr(wsErrUnknown), ErrorMsg: "Producer send queue is full", Context: m.Context})
		return
	}
	// Each message counts its frame's overhead too, so that a flood of
	// empty messages is bounded as well.
	size := int64(len(payload)) + wsMessageOverhead
	if p.pendingBytes+size > wsMemoryLimit {
		p.mu.Unlock()
		p.ack(WsProducerAck{Result: sendErr(wsErrUnknown), ErrorMsg: "Client memory buffer is full", Context: m.Context})
		return
	}
	seq := p.nextSeq
	p.nextSeq++
	p.pending[seq] = wsPending{ctx: m.Context, size: size}
	p.pendingBytes += size
	p.mu.Unlock()
	md.ProducerName, md.SequenceId = &p.name, &seq
	md.UncompressedSize = gproto.Uint32(uint32(len(payload)))
	pid := uint64(0)
	if p.parts > 0 {
		pid = uint64(part)
	}
	cmd := &proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{ProducerId: &pid, SequenceId: &seq, NumMessages: gproto.Int32(1)}}
	if err := p.s.bin.write(cmd, md, payload); err != nil {
		p.take(seq)
		p.ack(WsProducerAck{Result: sendErr(wsErrUnknown), ErrorMsg: err.Error(), Context: m.Context})
	}
}

// onFrame handles the broker's answers to SENDs (reader goroutine of the
// binary connection).
func (p *wsProducer) onFrame(f *wire.Frame) {
	switch f.Cmd.GetType() {
	case proto.BaseCommand_SEND_RECEIPT:
		r := f.Cmd.GetSendReceipt()
		ctx, ok := p.take(r.GetSequenceId())
		if !ok {
			return
		}
		id := r.GetMessageId()
		p.ack(WsProducerAck{Result: "ok", MessageID: wsMessageID(id.GetLedgerId(), id.GetEntryId(), id.GetPartition(), -1, 0), Context: ctx})
	case proto.BaseCommand_SEND_ERROR:
		e := f.Cmd.GetSendError()
		ctx, ok := p.take(e.GetSequenceId())
		if !ok {
			return
		}
		p.ack(WsProducerAck{Result: sendErr(wsErrUnknown), ErrorMsg: e.GetMessage(), Context: ctx})
	case proto.BaseCommand_CLOSE_PRODUCER:
		// The topic was unloaded or deleted: the client opens a new session.
		p.s.close(1011, "producer closed by the broker")
	}
}

func (p *wsProducer) take(seq uint64) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w, ok := p.pending[seq]
	delete(p.pending, seq)
	p.pendingBytes -= w.size
	return w.ctx, ok
}

func (p *wsProducer) ack(a WsProducerAck) { _ = p.s.Send(a) }

func sendErr(code int) string { return fmt.Sprintf("send-error:%d", code) }

// wsMessageID is a message id as Pulsar's WebSocket API writes it: base64
// of the MessageIdData the Java client serializes (partition when the
// topic has partitions, batch index and size for a batched message).
func wsMessageID(ledger, entry uint64, partition, batchIdx, batchSize int32) string {
	m := &proto.MessageIdData{LedgerId: &ledger, EntryId: &entry}
	if partition >= 0 {
		m.Partition = &partition
	}
	if batchIdx >= 0 {
		m.BatchIndex, m.BatchSize = &batchIdx, &batchSize
	}
	b, _ := gproto.Marshal(m)
	return base64.StdEncoding.EncodeToString(b)
}

// javaStringHash is Java's String.hashCode with the sign bit cleared, the
// Java producer's default hashingScheme (JavaStringHash).
func javaStringHash(s string) uint32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return uint32(h) & 0x7fffffff
}
