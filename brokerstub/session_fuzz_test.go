package brokerstub

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// FuzzSession plays a client session made of the fuzzer's bytes against
// one broker: after CONNECT, each op is a command (producers, sends with
// arbitrary metadata and payloads — batches, chunks, compression, delays,
// transactions —, subscriptions of every type, flows, acks with ack sets,
// seeks, redeliveries, closes, lookups, schemas, transactions, topic-list
// watches) or a frame of raw bytes, with ids from a small range so that the
// commands meet each other. It checks what no input may break:
//   - the broker does not panic (the fuzzer reports a crash);
//   - every request is answered, or the broker closes the connection;
//   - once the session's connection is closed, its consumers are gone (an
//     exclusive consumer can take a subscription it used) and a fresh
//     connection still produces and consumes.
//
// Plain go test runs the seeds; go test -fuzz=FuzzSession ./brokerstub/
// searches further.
func FuzzSession(f *testing.F) {
	for _, s := range sessionSeeds {
		f.Add(s)
	}
	b := RunT(f, Options{NoListener: true, TransactionCoordinatorEnabled: true})
	var n int
	f.Fuzz(func(t *testing.T, in []byte) {
		n++
		ns := fmt.Sprintf("persistent://public/default/fz%d-", n)
		s := newFuzzSession(t, b, ns)
		s.run(in)
		s.finish()
		checkBrokerServes(t, b, ns)
	})
}

// sessionSeeds are sessions worth starting from, written op by op with
// their arguments (see fuzzSession.op).
var sessionSeeds = [][]byte{
	// Produce, consume, ack.
	{opProducer, 0, 0, 0, opSubscribe, 0, 0, 0, 0, 1, opSend, 0, 0, 0, 0, 2, 'h', 'i',
		opFlow, 0, 10, opAck, 0, 0, 0, 0, 0, 0, 0, 0},
	// A message of three chunks, consumed; a cumulative ack with an ack set.
	{opProducer, 0, 0, 0,
		opSend, 0, 3, 0, 0, 2, 'a', 'b', 0, 3, 0, 6,
		opSend, 0, 3, 1, 0, 2, 'c', 'd', 0, 3, 1, 6,
		opSend, 0, 3, 2, 0, 2, 'e', 'f', 0, 3, 2, 6,
		opSubscribe, 0, 0, 0, 0, 1, opFlow, 0, 10, opAck, 0, 1, 0, 0, 1, 1, 0, 3, 1, 7, 0},
	// A batch on a Key_Shared subscription, a seek back, a redelivery.
	{opProducer, 1, 1, 0, opSubscribe, 1, 1, 0, 3, 3, 0, 1, 1, 0, 200, opFlow, 1, 20,
		opSend, 1, 1, 0, 0, 0, 3,
		opSeek, 1, 0, 0, 0, 0, 0, opRedeliver, 1, 1, 0, 0, 0, 0, opStats, 1},
	// A transaction: produce and ack in it, then commit.
	{opNewTxn, 60, 0, opProducer, 2, 2, 0, opSubscribe, 2, 2, 1, 0, 1,
		opSend, 2, 5, 0, 0, 1, 'x', 0, 0, 0, 0, 0, opFlow, 2, 5,
		opAck, 2, 0, 0, 0, 0, 0, 0, 0, 0, opEndTxn, 0, 0, 1},
	// Payloads that lie: a compressed one claiming 2 GiB, a batch claiming a
	// billion messages; then lookups, schemas, a watch and raw bytes.
	{opProducer, 0, 0, 0, opSubscribe, 0, 0, 0, 3, 0, opFlow, 0, 10,
		opSend, 0, 4, 0, 0, 3, 1, 2, 3, 1, 250, 0, 0, 0, 128, 0, 0, 0, 0,
		opSend, 0, 2, 1, 0, 1, 9, 250, 0, 202, 154, 59, 0, 0, 0, 0, 250, 0, 202, 154, 59, 0, 0, 0, 0,
		opLookup, 0, 0, opLookup, 1, 250, 5, 'a', '/', 'b', 'c', 'd', opSchema, 1, 0, 2, 3, '{', '}', 'x',
		opWatch, 0, 2, 't', '.', opRaw, 8, 0, 0, 0, 4, 0, 0, 0, 0},
}

// The ops of a session, one byte each, followed by their arguments.
const (
	opProducer = iota
	opSend
	opSubscribe
	opFlow
	opAck
	opSeek
	opRedeliver
	opCloseProducer
	opCloseConsumer
	opUnsubscribe
	opLastID
	opLookup
	opSchema
	opNewTxn
	opEndTxn
	opStats
	opWatch
	opRaw
	numOps
)

// answerWait bounds how long the session waits for the broker to answer
// its requests, and checkBrokerServes for each of its steps.
const answerWait = 10 * time.Second

// fuzzSession is one connection's session and what it waits for.
type fuzzSession struct {
	t      *testing.T
	nc     net.Conn
	ns     string // prefix of the session's topic names
	in     []byte
	rid    uint64
	txns   [][2]*uint64 // transactions the coordinator opened: least, most bits
	mu     sync.Mutex
	open   map[uint64]proto.BaseCommand_Type // request id → the request's command
	closed chan struct{}                     // the read loop ended: the broker closed the connection
	got    map[proto.BaseCommand_Type]int    // what the broker sent, for the log
	// raw is set once the session wrote raw bytes: the broker may then
	// read what follows as the rest of a frame those bytes began (as a
	// Pulsar broker would, up to its frame limit), so later requests are
	// sent but not expected to be answered.
	raw bool
}

func newFuzzSession(t *testing.T, b *Broker, ns string) *fuzzSession {
	nc, err := b.Dial(context.Background(), "tcp", "")
	if err != nil {
		t.Fatal(err)
	}
	s := &fuzzSession{t: t, nc: nc, ns: ns, open: map[uint64]proto.BaseCommand_Type{}, got: map[proto.BaseCommand_Type]int{}, closed: make(chan struct{})}
	s.write(&proto.BaseCommand{Type: proto.BaseCommand_CONNECT.Enum(), Connect: &proto.CommandConnect{
		ClientVersion: gproto.String("fuzz"), ProtocolVersion: gproto.Int32(21)}})
	go s.readLoop()
	return s
}

// readLoop reads the broker's frames, ticking off answered requests and
// answering pings, until the connection ends.
func (s *fuzzSession) readLoop() {
	defer close(s.closed)
	r := wire.NewReader(s.nc, 0)
	for {
		f, err := r.ReadFrame()
		if err != nil {
			var fe *wire.FrameError
			if errors.As(err, &fe) && !errors.Is(err, io.ErrUnexpectedEOF) && fe.Cmd != nil {
				continue // a frame the broker sent whole but with a bad payload section
			}
			return
		}
		s.mu.Lock()
		s.got[f.Cmd.GetType()]++
		s.mu.Unlock()
		switch f.Cmd.GetType() {
		case proto.BaseCommand_PING:
			s.write(&proto.BaseCommand{Type: proto.BaseCommand_PONG.Enum(), Pong: &proto.CommandPong{}})
		case proto.BaseCommand_NEW_TXN_RESPONSE:
			if r := f.Cmd.GetNewTxnResponse(); r.GetError() == 0 && r.Error == nil {
				s.mu.Lock()
				s.txns = append(s.txns, [2]*uint64{r.TxnidLeastBits, r.TxnidMostBits})
				s.mu.Unlock()
			}
		}
		if id, ok := wire.RequestID(f.Cmd); ok {
			s.mu.Lock()
			delete(s.open, id)
			s.mu.Unlock()
		}
	}
}

// write sends one frame; a write to a connection the broker closed is not
// an error of the broker's.
func (s *fuzzSession) write(cmd *proto.BaseCommand) {
	b, err := wire.AppendCommand(nil, cmd)
	if err == nil {
		_, _ = s.nc.Write(b)
	}
}

// request sends cmd, whose request id field set() sets, and expects an
// answer.
func (s *fuzzSession) request(cmd *proto.BaseCommand, set func(rid *uint64)) {
	s.rid++
	rid := s.rid
	set(&rid)
	if !s.raw {
		s.mu.Lock()
		s.open[rid] = cmd.GetType()
		s.mu.Unlock()
	}
	s.write(cmd)
}

// await waits until request rid is answered or the connection ends.
func (s *fuzzSession) await(rid uint64) {
	deadline := time.Now().Add(answerWait)
	for {
		s.mu.Lock()
		_, open := s.open[rid]
		s.mu.Unlock()
		select {
		case <-s.closed:
			return
		default:
		}
		if !open {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("request %d unanswered after %v", rid, answerWait)
		}
		time.Sleep(time.Millisecond)
	}
}

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
		s.send()
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
func (s *fuzzSession) send() {
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

// finish waits until every request is answered (or the broker closed the
// connection), then closes the connection.
func (s *fuzzSession) finish() {
	defer func() {
		s.nc.Close()
		<-s.closed
		s.t.Logf("the broker sent %v", s.got)
	}()
	deadline := time.Now().Add(answerWait)
	for {
		s.mu.Lock()
		left := len(s.open)
		var some string
		for id, typ := range s.open {
			some = fmt.Sprintf("request %d (%s)", id, typ)
			break
		}
		s.mu.Unlock()
		select {
		case <-s.closed:
			return
		default:
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%d requests unanswered after %v, among them %s", left, answerWait, some)
		}
		time.Sleep(time.Millisecond)
	}
}

// checkBrokerServes checks that b still works after a session on topics
// under ns: an exclusive consumer gets the session's subscription s0 of
// t0 (the session's consumers are gone), and a message produced on a
// fresh topic arrives.
func checkBrokerServes(t *testing.T, b *Broker, ns string) {
	nc, err := b.Dial(context.Background(), "tcp", "")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c := dialRawOn(t, nc)
	c.connect()
	topic := ns + "t0"
	deadline := time.Now().Add(answerWait)
	for rid := uint64(1); ; rid++ {
		c.send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
			Topic: &topic, Subscription: gproto.String("s0"), SubType: proto.CommandSubscribe_Exclusive.Enum(),
			ConsumerId: gproto.Uint64(rid), RequestId: gproto.Uint64(rid)}})
		f, err := c.next()
		for err == nil && f.Cmd.GetType() == proto.BaseCommand_PING {
			f, err = c.next()
		}
		if err != nil {
			t.Fatalf("subscribing after the session: %v", err)
		}
		if f.Cmd.GetType() == proto.BaseCommand_SUCCESS {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session's consumers still hold s0 after %v: %s", answerWait, f.Cmd)
		}
		time.Sleep(5 * time.Millisecond)
	}
	fresh := ns + "probe"
	c.send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &fresh, Subscription: gproto.String("p"), SubType: proto.CommandSubscribe_Exclusive.Enum(),
		ConsumerId: gproto.Uint64(1000), RequestId: gproto.Uint64(1000)}})
	c.expect(proto.BaseCommand_SUCCESS)
	c.send(&proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{
		ConsumerId: gproto.Uint64(1000), MessagePermits: gproto.Uint32(1)}})
	c.send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: &fresh, ProducerId: gproto.Uint64(1), RequestId: gproto.Uint64(1001)}})
	name := c.expect(proto.BaseCommand_PRODUCER_SUCCESS).GetProducerSuccess().GetProducerName()
	c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
		ProducerId: gproto.Uint64(1), SequenceId: gproto.Uint64(0)}},
		&proto.MessageMetadata{ProducerName: &name, SequenceId: gproto.Uint64(0), PublishTime: gproto.Uint64(1)}, []byte("probe"))
	for got := 0; got < 2; {
		f, err := c.next()
		if err != nil {
			t.Fatalf("the probe's message: %v", err)
		}
		switch f.Cmd.GetType() {
		case proto.BaseCommand_SEND_RECEIPT:
			got++
		case proto.BaseCommand_MESSAGE:
			if string(f.Payload) != "probe" {
				t.Fatalf("the probe got %q", f.Payload)
			}
			got++
		case proto.BaseCommand_PING:
		default:
			t.Fatalf("the probe got %s", f.Cmd)
		}
	}
}
