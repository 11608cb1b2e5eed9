package brokerstub

import (
	"context"
	"fmt"
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
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
// searches further. One broker serves every input, and the session wakes
// on each answer rather than polling; still, an input is a connection, up
// to 64 requests each answered by the broker's goroutines, and the
// after-check's subscribe, produce and receive, so this target runs at
// a hundred or two executions a second at best on a shared 2-core
// machine, not the thousand of the decoders' targets. And as goroutine
// scheduling varies an input's coverage, the fuzzer often stops to
// minimize an input whose new coverage does not come back, for up to
// -fuzzminimizetime (a minute by default): five minutes with the default
// made 3,452 executions, in bursts of a couple of thousand between such
// stops. Pass -fuzzminimizetime=5s for a long run (.ci/fuzz passes 10s). The decoding of what a session sends
// (frames, metadata, batches, compressed payloads) is fuzzed at full
// speed by internal/wire's, chunk's and internal/compress's targets; this
// one covers the broker's handling of the commands in any order. Each
// input adds up to four topics to the broker, which keeps them: a long
// run grows its memory.
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
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
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
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &fresh, Subscription: gproto.String("p"), SubType: proto.CommandSubscribe_Exclusive.Enum(),
		ConsumerId: gproto.Uint64(1000), RequestId: gproto.Uint64(1000)}})
	c.expect(proto.BaseCommand_SUCCESS)
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{
		ConsumerId: gproto.Uint64(1000), MessagePermits: gproto.Uint32(1)}})
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
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
