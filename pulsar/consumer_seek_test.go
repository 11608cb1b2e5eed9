package pulsar

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/topicname"
	"github.com/pulsargo/sdk/messageid"
)

// The tests of this file check every row of the table in Consumer.Seek's
// doc, for Consumer.Seek, Reader.Seek and a Reader's StartMessageID, with
// ids from Send, from Receive and from DeserializeMessageID, on a topic
// without partitions and on one with two.

// seekMsgs are the messages of a seek topic, in order: three chunked
// messages, a plain one, a batch of three and a plain one.
var seekMsgs = []string{"c0", "c1", "c2", "p3", "b0", "b1", "b2", "p5"}

// seekTopic is a topic holding seekMsgs, all on one partition.
type seekTopic struct {
	topic    string               // what consumers subscribe to
	part     string               // the partition holding the messages (topic itself without partitions)
	payloads map[string][]byte    // by name
	sent     map[string]MessageID // ids Send returned, by name
	received map[string]MessageID // ids of received messages, by name
}

// seekPayload is a message's payload: its name, then for chunked messages
// 3000 bytes more (three chunks of 1000 bytes at most).
func seekPayload(name string, seed uint64) []byte {
	p := []byte(name)
	if name[0] == 'c' {
		p = append(p, csNoise(3000, seed)...)
	}
	return p
}

// makeSeekTopic fills a topic; with partitions, everything goes to
// partition 1 of 2.
func makeSeekTopic(t *testing.T, v *csEnv, partitioned bool) *seekTopic {
	t.Helper()
	st := &seekTopic{topic: csTopic(), payloads: map[string][]byte{}, sent: map[string]MessageID{}, received: map[string]MessageID{}}
	st.part = st.topic
	if partitioned {
		if err := v.b.CreatePartitionedTopic(st.topic, 2); err != nil {
			t.Fatal(err)
		}
		st.part = topicname.PartitionName(st.topic, 1)
	}
	toOne := func(*ProducerMessage, TopicMetadata) int { return 1 }
	plain, err := v.c.CreateProducer(ProducerOptions{Topic: st.topic, EnableChunking: true, DisableBatching: true,
		ChunkMaxMessageSize: 1000, MessageRouter: toOne})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	// The three messages make one batch: it goes when the third is added,
	// never on the publish delay (a loaded machine could pass 10 ms, the
	// default, between two SendAsyncs and split it).
	batched, err := v.c.CreateProducer(ProducerOptions{Topic: st.topic, BatchingMaxMessages: 3, MessageRouter: toOne,
		BatchingMaxPublishDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer batched.Close()
	send := func(name string) {
		st.payloads[name] = seekPayload(name, uint64(len(st.payloads)))
		id, err := plain.Send(csCtx(t), &ProducerMessage{Payload: st.payloads[name]})
		if err != nil {
			t.Fatalf("send %s: %v", name, err)
		}
		st.sent[name] = id
	}
	for _, n := range []string{"c0", "c1", "c2", "p3"} {
		send(n)
	}
	done := make(chan error, 3)
	for _, n := range []string{"b0", "b1", "b2"} {
		st.payloads[n] = seekPayload(n, 0)
		batched.SendAsync(csCtx(t), &ProducerMessage{Payload: st.payloads[n]}, func(id MessageID, _ *ProducerMessage, err error) {
			st.sent[n] = id // callbacks of one partition run in order, one at a time
			done <- err
		})
	}
	for range 3 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	send("p5")
	if _, ok := st.sent["c1"].(ChunkMessageID); !ok {
		t.Fatalf("c1 was not chunked: id %v", st.sent["c1"])
	}
	if st.sent["b1"].BatchIdx() != 1 {
		t.Fatalf("b1 is not batch index 1: id %v", st.sent["b1"])
	}
	r := v.reader(ReaderOptions{Topic: st.topic, StartMessageID: EarliestMessageID()})
	for i, m := range readN(t, r, len(seekMsgs)) {
		st.check(t, m, seekMsgs[i])
		st.received[seekMsgs[i]] = m.ID()
	}
	r.Close()
	return st
}

// check fails unless m is the message name, whole, with the id Send
// returned.
func (st *seekTopic) check(t *testing.T, m Message, name string) {
	t.Helper()
	p := m.Payload()
	got := string(p[:min(2, len(p))])
	if got != name {
		t.Fatalf("got %s (id %v), want %s", got, m.ID(), name)
	}
	if !bytes.Equal(p, st.payloads[name]) {
		t.Fatalf("%s: payload of %d bytes differs from the %d sent", name, len(p), len(st.payloads[name]))
	}
	if sent := st.sent[name]; !messageid.Equal(m.ID(), sent) {
		t.Fatalf("%s: id %v, Send returned %v", name, m.ID(), sent)
	}
}

// seekID returns the id of message name from a source.
func (st *seekTopic) seekID(t *testing.T, name, source string) MessageID {
	t.Helper()
	switch source {
	case "send":
		return st.sent[name]
	case "receive":
		return st.received[name]
	}
	back, err := DeserializeMessageID(st.sent[name].Serialize())
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// seekRow is a row of the table: what follows a seek (or a start) to
// target, inclusive or not.
type seekRow struct {
	kind, target string
	op           string // "Consumer.Seek", "Reader.Seek", "Reader start"
	inclusive    bool
	next         string
}

// seekTable is Consumer.Seek's table for the ids of a seek topic.
func seekTable() []seekRow {
	var rows []seekRow
	for _, op := range []string{"Consumer.Seek", "Reader.Seek", "Reader start"} {
		for _, incl := range []bool{true, false} {
			add := func(kind, target, inclNext, exclNext string) {
				next := exclNext
				if incl {
					next = inclNext
				}
				rows = append(rows, seekRow{kind: kind, target: target, op: op, inclusive: incl, next: next})
			}
			if op == "Reader start" {
				add("chunk", "c1", "c1", "c2")
			} else {
				add("chunk", "c1", "c1", "c1") // inclusive or not
			}
			add("plain", "p3", "p3", "b0")
			add("batch", "b1", "b1", "b2")
		}
	}
	return rows
}

func TestSeekTable(t *testing.T) {
	for _, partitioned := range []bool{false, true} {
		t.Run(fmt.Sprintf("partitioned=%v", partitioned), func(t *testing.T) {
			v := newCSEnv(t)
			st := makeSeekTopic(t, v, partitioned)
			for i, row := range seekTable() {
				for _, source := range []string{"send", "receive", "deserialize"} {
					name := fmt.Sprintf("%s/%s/%s/inclusive=%v", row.op, row.kind, source, row.inclusive)
					t.Run(name, func(t *testing.T) {
						id := st.seekID(t, row.target, source)
						sub := fmt.Sprintf("s-%d-%s", i, source)
						st.check(t, seekNext(t, v, st, row, id, sub), row.next)
					})
				}
			}
		})
	}
}

// seekNext performs a row's operation with id and returns the message
// that comes next.
func seekNext(t *testing.T, v *csEnv, st *seekTopic, row seekRow, id MessageID, sub string) Message {
	t.Helper()
	switch row.op {
	case "Consumer.Seek":
		// Read through everything first, so that the seek goes back.
		c := v.subscribe(ConsumerOptions{Topic: st.topic, SubscriptionName: sub, StartMessageIDInclusive: row.inclusive})
		for _, m := range csRecvN(t, c, len(seekMsgs)) {
			if err := c.Ack(m); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Seek(id); err != nil {
			t.Fatal(err)
		}
		return csRecv(t, c)
	case "Reader.Seek":
		r := v.reader(ReaderOptions{Topic: st.topic, StartMessageID: EarliestMessageID(), StartMessageIDInclusive: row.inclusive})
		readN(t, r, len(seekMsgs))
		if err := r.Seek(id); err != nil {
			t.Fatal(err)
		}
		if !r.HasNext() {
			t.Fatal("HasNext false after the seek")
		}
		return readN(t, r, 1)[0]
	}
	// A reader of a partitioned topic starts at a specific id only on one
	// partition: it reads the partition.
	r := v.reader(ReaderOptions{Topic: st.part, StartMessageID: id, StartMessageIDInclusive: row.inclusive})
	if !r.HasNext() {
		t.Fatal("HasNext false at the start")
	}
	return readN(t, r, 1)[0]
}

// TestSeekMultiTopic: a consumer of several topics seeks the topic that
// delivered the id. Ids carry no topic; they name one message because
// ledger ids are unique in a cluster (and in the stub), so the other topic,
// which has entries at the same entry numbers, is not moved: its cursor,
// read from the broker once each Seek has returned, stays where the acks
// left it. (Seeking every topic is caught by that check every time; the
// messages received after the seek show it only when the other topic's
// redeliveries happen to arrive first.)
func TestSeekMultiTopic(t *testing.T) {
	v := newCSEnv(t, brokerstub.Options{})
	st := makeSeekTopic(t, v, false)
	other := csTopic()
	p := v.raw(other, -1)
	const others = 20 // more entries than the seek topic's chunked messages take
	for i := range others {
		if _, err := p.Send(csCtx(t), fmt.Appendf(nil, "o%d", i), ""); err != nil {
			t.Fatal(err)
		}
	}
	for _, source := range []string{"send", "receive", "deserialize"} {
		t.Run(source, func(t *testing.T) {
			sub := "multi-" + source
			c := v.subscribe(ConsumerOptions{Topics: []string{other, st.topic}, SubscriptionName: sub, AckWithResponse: true})
			for _, m := range csRecvN(t, c, len(seekMsgs)+others) {
				if err := c.Ack(m); err != nil {
					t.Fatal(err)
				}
			}
			otherCursor := func() brokerstub.Position {
				t.Helper()
				cur, _, err := v.b.Cursor(other, sub)
				if err != nil {
					t.Fatal(err)
				}
				return cur.MarkDelete
			}
			acked := otherCursor()
			if err := c.Seek(st.seekID(t, "c1", source)); err != nil {
				t.Fatal(err)
			}
			if got := otherCursor(); got != acked {
				t.Fatalf("seek to c1 of the seek topic moved the other topic's cursor from %v to %v", acked, got)
			}
			st.check(t, csRecv(t, c), "c1")
			// The other topic has an entry at p3's entry number, in
			// another ledger: only the seek topic moves, to the message
			// after p3 (a consumer's seek to a plain id is exclusive, as
			// seekTable says), and the other topic has nothing to redeliver.
			if err := c.Seek(st.seekID(t, "p3", source)); err != nil {
				t.Fatalf("seek to p3: %v", err)
			}
			if got := otherCursor(); got != acked {
				t.Fatalf("seek to p3 moved the other topic's cursor from %v to %v", acked, got)
			}
			for _, want := range []string{"b0", "b1", "b2", "p5"} {
				st.check(t, csRecv(t, c), want)
			}
		})
	}
}

// A Seek costs a SEEK and a SUBSCRIBE: the broker has closed the consumer
// before answering the SEEK, and serves the topic on the same connection,
// so the consumer neither closes itself again nor looks the topic up.
func TestSeekIsOneSeekAndOneSubscribe(t *testing.T) {
	b := brokerstub.RunT(t)
	c, err := NewClient(ClientOptions{URL: b.URL(), Logger: clientLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	topic := csTopic()
	cons, err := c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	p, err := c.CreateProducer(ProducerOptions{Topic: topic, DisableBatching: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	var first MessageID
	for i := range 2 {
		id, err := p.Send(ctx, &ProducerMessage{Payload: fmt.Appendf(nil, "m%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = id
		}
		if _, err := cons.Receive(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var l commandLog
	b.Intercept(l.record)
	if err := cons.Seek(first); err != nil {
		t.Fatal(err)
	}
	m, err := cons.Receive(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Payload()) != "m1" { // the one after the id, StartInclusive being false
		t.Fatalf("after the seek: %q", m.Payload())
	}
	for typ, want := range map[brokerstub.Command]int{brokerstub.CmdSeek: 1, brokerstub.CmdSubscribe: 1,
		brokerstub.CmdCloseConsumer: 0, brokerstub.CmdLookup: 0} {
		if got := len(l.of(typ)); got != want {
			t.Errorf("%d %s commands for a seek, want %d", got, typ, want)
		}
	}
}
