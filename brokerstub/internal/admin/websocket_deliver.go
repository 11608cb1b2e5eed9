package admin

import (
	"encoding/base64"

	"github.com/pulsargo/sdk/brokerstub/internal/websocket"
	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// onFrame handles what the broker sends the session's consumers (reader
// goroutine of the binary connection).
func (c *wsConsumer) onFrame(f *wire.Frame) {
	switch f.Cmd.GetType() {
	case proto.BaseCommand_MESSAGE:
		c.Deliver(f)
	case proto.BaseCommand_REACHED_END_OF_TOPIC:
		i := int(f.Cmd.GetReachedEndOfTopic().GetConsumerId())
		c.mu.Lock()
		if i < len(c.endOfTopic) {
			c.endOfTopic[i] = true
		}
		c.mu.Unlock()
	case proto.BaseCommand_CLOSE_CONSUMER:
		c.s.close(websocket.CloseInternalError, "consumer closed by the broker")
	}
}

// Deliver sends the messages of one MESSAGE frame to the client.
func (c *wsConsumer) Deliver(f *wire.Frame) {
	m := f.Cmd.GetMessage()
	part := int(m.GetConsumerId())
	partition := int32(-1)
	if c.parts > 0 {
		partition = int32(part)
	}
	md := f.Meta
	if c.pull {
		n := int64(max(md.GetNumMessagesInBatch(), 1))
		c.mu.Lock()
		c.inflight = max(c.inflight-n, 0)
		c.mu.Unlock()
	}
	if md.GetNumChunksFromMsg() > 1 {
		c.s.close(websocket.CloseInternalError, "chunked messages are not served over WebSocket by brokerstub")
		return
	}
	payload := f.Payload
	if ct := md.GetCompression(); ct != proto.CompressionType_NONE {
		codec, err := compress.Lookup(compress.Type(ct))
		if err == nil {
			payload, err = compress.Decompress(codec, nil, payload, int(md.GetUncompressedSize()), c.s.b.Cfg.MaxMessageSize)
		}
		if err != nil {
			c.s.close(websocket.CloseInternalError, "cannot decompress a message")
			return
		}
	}
	id := m.GetMessageId()
	l, e := id.GetLedgerId(), id.GetEntryId()
	key := wsEntry{part: part, ledger: l, entry: e}
	msg := WsConsumerMessage{PublishTime: wsTime(md.GetPublishTime()), RedeliveryCount: m.GetRedeliveryCount()}
	if !wire.IsBatch(md) {
		if c.skip(l, e, -1) {
			c.skipped(part, 1)
			return
		}
		c.track(key, nil, 1)
		msg.MessageID = wsMessageID(l, e, partition, -1, 0)
		msg.Payload = base64.StdEncoding.EncodeToString(payload)
		msg.Properties = wsProps(md.GetProperties())
		msg.Key = md.GetPartitionKey()
		if md.GetEventTime() != 0 {
			msg.EventTime = wsTime(md.GetEventTime())
		}
		_ = c.s.Send(msg)
		return
	}
	n := int(md.GetNumMessagesInBatch())
	ackSet := m.GetAckSet()
	var out []WsConsumerMessage
	acked := make([]bool, n)
	skipped := 0
	err := wire.SplitBatch(payload, n, func(i int, smm *proto.SingleMessageMetadata, body []byte) error {
		// ack_set: a set bit is a message not acknowledged yet.
		if len(ackSet) > 0 && (i/64 >= len(ackSet) || ackSet[i/64]&(1<<(i%64)) == 0) || c.skip(l, e, int32(i)) {
			acked[i] = true
			skipped++
			return nil
		}
		mm := msg
		mm.MessageID = wsMessageID(l, e, partition, int32(i), int32(n))
		mm.Payload = base64.StdEncoding.EncodeToString(body)
		mm.Properties = wsProps(smm.GetProperties())
		mm.Key = smm.GetPartitionKey()
		if smm.GetEventTime() != 0 {
			mm.EventTime = wsTime(smm.GetEventTime())
		}
		out = append(out, mm)
		return nil
	})
	if err != nil {
		c.s.close(websocket.CloseInternalError, "bad batch")
		return
	}
	if skipped > 0 {
		c.skipped(part, skipped)
	}
	if len(out) == 0 {
		return
	}
	c.track(key, acked, len(out))
	for _, mm := range out {
		if c.s.Send(mm) != nil {
			return
		}
	}
}

// skip reports whether a reader's exclusive start id excludes a message.
func (c *wsConsumer) skip(l, e uint64, batch int32) bool {
	s := c.start
	return s != nil && (l < s.ledger || l == s.ledger && (e < s.entry || e == s.entry && batch <= s.batch))
}

// skipped gives back the permits of messages not delivered.
func (c *wsConsumer) skipped(part, n int) {
	if !c.pull {
		c.flow(part, n)
	}
}

func (c *wsConsumer) track(key wsEntry, acked []bool, n int) {
	c.mu.Lock()
	c.open[key] = &wsBatch{acked: acked, left: n}
	if c.pull {
		c.unacked += int64(n)
	}
	c.mu.Unlock()
}
