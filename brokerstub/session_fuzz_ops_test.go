package brokerstub

import (
	"encoding/binary"
	"fmt"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// byte returns the next input byte, 0 once the input is used up.
func (s *fuzzSession) byte() byte {
	if len(s.in) == 0 {
		return 0
	}
	c := s.in[0]
	s.in = s.in[1:]
	return c
}

// bytes returns the next n input bytes (fewer at the end).
func (s *fuzzSession) bytes(n int) []byte {
	n = min(n, len(s.in))
	b := s.in[:n]
	s.in = s.in[n:]
	return b
}

// u64 returns a number that is mostly small, sometimes huge.
func (s *fuzzSession) u64() uint64 {
	c := s.byte()
	if c < 250 {
		return uint64(c)
	}
	var b [8]byte
	copy(b[:], s.bytes(8))
	return binary.LittleEndian.Uint64(b[:])
}

func (s *fuzzSession) topic() *string {
	c := s.byte()
	if c >= 250 { // a name of the input's bytes
		return gproto.String(string(s.bytes(int(s.byte() % 40))))
	}
	return gproto.String(fmt.Sprintf("%st%d", s.ns, c%3))
}

func (s *fuzzSession) id() *uint64 { return gproto.Uint64(uint64(s.byte() % 4)) }

func (s *fuzzSession) msgID() *proto.MessageIdData {
	d := &proto.MessageIdData{LedgerId: gproto.Uint64(s.u64()), EntryId: gproto.Uint64(s.u64())}
	if c := s.byte(); c&1 != 0 {
		d.BatchIndex = gproto.Int32(int32(s.u64()))
		d.BatchSize = gproto.Int32(int32(s.u64()))
	}
	for range s.byte() % 3 {
		d.AckSet = append(d.AckSet, int64(s.u64()))
	}
	return d
}

func (s *fuzzSession) txn() (least, most *uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := int(s.byte())
	if len(s.txns) == 0 || c >= 200 {
		return gproto.Uint64(s.u64()), gproto.Uint64(s.u64())
	}
	id := s.txns[c%len(s.txns)]
	return id[0], id[1]
}

// run plays the ops of in.
func (s *fuzzSession) run(in []byte) {
	s.in = in
	for ops := 0; len(s.in) > 0 && ops < 64; ops++ {
		select {
		case <-s.closed:
			return // the broker closed the connection: nothing more to check on it
		default:
		}
		s.op(s.byte() % numOps)
	}
}

func (s *fuzzSession) op(op byte) {
	type bc = proto.BaseCommand
	switch op {
	case opProducer:
		p := &proto.CommandProducer{ProducerId: s.id(), Topic: s.topic()}
		// WaitForExclusive (2) waits for good without an answer while another
		// producer holds the topic: not an op of this session.
		modes := []proto.ProducerAccessMode{proto.ProducerAccessMode_Shared, proto.ProducerAccessMode_Exclusive, proto.ProducerAccessMode_ExclusiveWithFencing}
		if c := s.byte(); c%4 != 0 {
			p.ProducerAccessMode = modes[int(c)%len(modes)].Enum()
		}
		s.request(&bc{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: p}, func(r *uint64) { p.RequestId = r })
	case opSend:
		s.Send()
	case opSubscribe:
		s.subscribe()
	case opFlow:
		s.write(&bc{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{ConsumerId: s.id(), MessagePermits: gproto.Uint32(uint32(s.u64()))}})
	case opAck:
		a := &proto.CommandAck{ConsumerId: s.id(), AckType: proto.CommandAck_AckType(s.byte() % 2).Enum()}
		for range 1 + s.byte()%3 {
			a.MessageId = append(a.MessageId, s.msgID())
		}
		if s.byte()%4 == 0 {
			a.TxnidLeastBits, a.TxnidMostBits = s.txn()
			s.request(&bc{Type: proto.BaseCommand_ACK.Enum(), Ack: a}, func(r *uint64) { a.RequestId = r })
			return
		}
		s.write(&bc{Type: proto.BaseCommand_ACK.Enum(), Ack: a})
	case opSeek:
		k := &proto.CommandSeek{ConsumerId: s.id()}
		if s.byte()%2 == 0 {
			k.MessageId = s.msgID()
		} else {
			k.MessagePublishTime = gproto.Uint64(s.u64())
		}
		s.request(&bc{Type: proto.BaseCommand_SEEK.Enum(), Seek: k}, func(r *uint64) { k.RequestId = r })
	case opRedeliver:
		rd := &proto.CommandRedeliverUnacknowledgedMessages{ConsumerId: s.id()}
		for range s.byte() % 3 {
			rd.MessageIds = append(rd.MessageIds, s.msgID())
		}
		s.write(&bc{Type: proto.BaseCommand_REDELIVER_UNACKNOWLEDGED_MESSAGES.Enum(), RedeliverUnacknowledgedMessages: rd})
	case opCloseProducer:
		c := &proto.CommandCloseProducer{ProducerId: s.id()}
		s.request(&bc{Type: proto.BaseCommand_CLOSE_PRODUCER.Enum(), CloseProducer: c}, func(r *uint64) { c.RequestId = r })
	case opCloseConsumer:
		c := &proto.CommandCloseConsumer{ConsumerId: s.id()}
		s.request(&bc{Type: proto.BaseCommand_CLOSE_CONSUMER.Enum(), CloseConsumer: c}, func(r *uint64) { c.RequestId = r })
	case opUnsubscribe:
		u := &proto.CommandUnsubscribe{ConsumerId: s.id(), Force: gproto.Bool(s.byte()%2 == 0)}
		s.request(&bc{Type: proto.BaseCommand_UNSUBSCRIBE.Enum(), Unsubscribe: u}, func(r *uint64) { u.RequestId = r })
	case opLastID:
		g := &proto.CommandGetLastMessageId{ConsumerId: s.id()}
		s.request(&bc{Type: proto.BaseCommand_GET_LAST_MESSAGE_ID.Enum(), GetLastMessageId: g}, func(r *uint64) { g.RequestId = r })
	case opLookup:
		if c := s.byte(); c%2 == 0 {
			l := &proto.CommandLookupTopic{Topic: s.topic(), Authoritative: gproto.Bool(c%4 == 0)}
			s.request(&bc{Type: proto.BaseCommand_LOOKUP.Enum(), LookupTopic: l}, func(r *uint64) { l.RequestId = r })
		} else {
			m := &proto.CommandPartitionedTopicMetadata{Topic: s.topic()}
			s.request(&bc{Type: proto.BaseCommand_PARTITIONED_METADATA.Enum(), PartitionMetadata: m}, func(r *uint64) { m.RequestId = r })
		}
	case opSchema:
		if c := s.byte(); c%2 == 0 {
			g := &proto.CommandGetSchema{Topic: s.topic(), SchemaVersion: s.bytes(int(s.byte() % 9))}
			s.request(&bc{Type: proto.BaseCommand_GET_SCHEMA.Enum(), GetSchema: g}, func(r *uint64) { g.RequestId = r })
		} else {
			g := &proto.CommandGetOrCreateSchema{Topic: s.topic(), Schema: s.schema()}
			s.request(&bc{Type: proto.BaseCommand_GET_OR_CREATE_SCHEMA.Enum(), GetOrCreateSchema: g}, func(r *uint64) { g.RequestId = r })
		}
	case opNewTxn:
		// The session waits for the transaction, so that the ops after
		// this one use it whatever the timing.
		n := &proto.CommandNewTxn{TxnTtlSeconds: gproto.Uint64(s.u64()), TcId: gproto.Uint64(uint64(s.byte() % 2))}
		s.request(&bc{Type: proto.BaseCommand_NEW_TXN.Enum(), NewTxn: n}, func(r *uint64) { n.RequestId = r })
		s.await(*n.RequestId)
	case opEndTxn:
		e := &proto.CommandEndTxn{TxnAction: proto.TxnAction(s.byte() % 3).Enum()}
		e.TxnidLeastBits, e.TxnidMostBits = s.txn()
		if s.byte()%2 == 0 {
			a := &proto.CommandAddPartitionToTxn{TxnidLeastBits: e.TxnidLeastBits, TxnidMostBits: e.TxnidMostBits, Partitions: []string{*s.topic()}}
			s.request(&bc{Type: proto.BaseCommand_ADD_PARTITION_TO_TXN.Enum(), AddPartitionToTxn: a}, func(r *uint64) { a.RequestId = r })
			return
		}
		s.request(&bc{Type: proto.BaseCommand_END_TXN.Enum(), EndTxn: e}, func(r *uint64) { e.RequestId = r })
	case opStats:
		c := &proto.CommandConsumerStats{ConsumerId: s.id()}
		s.request(&bc{Type: proto.BaseCommand_CONSUMER_STATS.Enum(), ConsumerStats: c}, func(r *uint64) { c.RequestId = r })
	case opWatch:
		w := &proto.CommandWatchTopicList{WatcherId: s.id(), Namespace: gproto.String("public/default"),
			TopicsPattern: gproto.String(s.ns + string(s.bytes(int(s.byte()%12))))}
		s.request(&bc{Type: proto.BaseCommand_WATCH_TOPIC_LIST.Enum(), WatchTopicList: w}, func(r *uint64) { w.RequestId = r })
	case opRaw:
		if b := s.bytes(int(s.byte() % 64)); len(b) > 0 {
			s.raw = true
			_, _ = s.nc.Write(b)
		}
	}
}

func (s *fuzzSession) schema() *proto.Schema {
	return &proto.Schema{Name: gproto.String("s"), Type: proto.Schema_Type(int32(s.byte() % 24)).Enum(),
		SchemaData: s.bytes(int(s.byte() % 48))}
}

// send sends a SEND whose metadata and payload come from the input: a
// plain message, a batch (a valid one, or num_messages over raw bytes), a
// chunk, compressed, delayed, in a transaction.
func (s *fuzzSession) Send() {
	pid := s.id()
	kind := s.byte()
	seq := s.u64()
	md := &proto.MessageMetadata{ProducerName: gproto.String("fz"), SequenceId: gproto.Uint64(seq), PublishTime: gproto.Uint64(1 + s.u64())}
	cmd := &proto.CommandSend{ProducerId: pid, SequenceId: gproto.Uint64(seq)}
	payload := s.bytes(int(s.byte() % 32))
	switch kind % 6 {
	case 1: // a batch of valid entries
		var batch []byte
		n := 1 + s.byte()%4
		for i := range n {
			batch, _ = wire.AppendSingleMessage(batch, &wire.SingleMessage{PartitionKey: fmt.Sprint(i % 2)}, []byte{byte(i)})
		}
		payload = batch
		md.NumMessagesInBatch = gproto.Int32(int32(n))
		cmd.NumMessages = gproto.Int32(int32(n))
	case 2: // a batch that says what it likes about itself
		md.NumMessagesInBatch = gproto.Int32(int32(s.u64()))
		cmd.NumMessages = gproto.Int32(int32(s.u64()))
	case 3: // a chunk
		md.Uuid = gproto.String(fmt.Sprintf("u%d", s.byte()%2))
		md.NumChunksFromMsg = gproto.Int32(int32(s.byte() % 4))
		md.ChunkId = gproto.Int32(int32(s.byte() % 4))
		md.TotalChunkMsgSize = gproto.Int32(int32(s.u64()))
		cmd.IsChunk = gproto.Bool(true)
	case 4: // compressed, with the size it claims
		md.Compression = proto.CompressionType(int32(s.byte() % 5)).Enum()
		md.UncompressedSize = gproto.Uint32(uint32(s.u64()))
	case 5: // keyed, delayed, in a transaction
		md.PartitionKey = gproto.String(fmt.Sprint(s.byte() % 3))
		md.OrderingKey = s.bytes(int(s.byte() % 3))
		md.DeliverAtTime = gproto.Int64(int64(s.u64()))
		if s.byte()%2 == 0 {
			cmd.TxnidLeastBits, cmd.TxnidMostBits = s.txn()
		}
	}
	b, err := wire.AppendPayloadFrame(nil, &proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: cmd}, md, payload)
	if err == nil {
		_, _ = s.nc.Write(b)
	}
}

func (s *fuzzSession) subscribe() {
	sub := &proto.CommandSubscribe{ConsumerId: s.id(), Topic: s.topic(),
		Subscription: gproto.String(fmt.Sprintf("s%d", s.byte()%2)),
		SubType:      proto.CommandSubscribe_SubType(int32(s.byte() % 4)).Enum()}
	switch c := s.byte(); c % 4 {
	case 1:
		sub.InitialPosition = proto.CommandSubscribe_Earliest.Enum()
	case 2:
		sub.Durable = gproto.Bool(false)
		sub.StartMessageId = s.msgID()
	case 3:
		sub.KeySharedMeta = &proto.KeySharedMeta{KeySharedMode: proto.KeySharedMode(int32(s.byte() % 2)).Enum(),
			AllowOutOfOrderDelivery: gproto.Bool(s.byte()%2 == 0)}
		for range s.byte() % 3 {
			sub.KeySharedMeta.HashRanges = append(sub.KeySharedMeta.HashRanges,
				&proto.IntRange{Start: gproto.Int32(int32(s.u64())), End: gproto.Int32(int32(s.u64()))})
		}
	}
	s.request(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: sub}, func(r *uint64) { sub.RequestId = r })
}
