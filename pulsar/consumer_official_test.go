package pulsar

import (
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
)

// The tests of this file and reader_official_test.go are named after tests
// of the official Go client (v0.19.0, pulsar/consumer_test.go and
// reader_test.go) on which pulsargo behaved differently; each checks the
// official client's behaviour. They run in a testing/synctest bubble over
// the stub's in-memory connections, so that waiting for nothing to arrive
// takes no wall time.

// bubbleEnv is a csEnv whose stub has no TCP listener, for a synctest
// bubble.
func bubbleEnv(t *testing.T) *csEnv {
	return newCSEnv(t, brokerstub.Options{NoListener: true})
}

// TestConsumerNonDurable: a non-durable consumer that subscribes again
// starts at its SubscriptionInitialPosition (default latest), not at the
// earliest message.
func TestConsumerNonDurable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := bubbleEnv(t)
		topic := csTopic()
		p, err := v.c.CreateProducer(ProducerOptions{Topic: topic})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		send := func(s string) {
			t.Helper()
			if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte(s)}); err != nil {
				t.Fatal(err)
			}
		}
		opts := ConsumerOptions{Topic: topic, SubscriptionName: "sub-1", Type: Shared, SubscriptionMode: NonDurable}
		c, err := v.c.Subscribe(opts)
		if err != nil {
			t.Fatal(err)
		}
		send("msg-content-1")
		if m := csRecv(t, c); string(m.Payload()) != "msg-content-1" {
			t.Fatalf("got %q", m.Payload())
		}
		c.Close()
		send("msg-content-2") // nobody subscribed: not for the next subscription
		c, err = v.c.Subscribe(opts)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		send("msg-content-3")
		if m := csRecv(t, c); string(m.Payload()) != "msg-content-3" {
			t.Fatalf("subscribed again at latest, got %q first", m.Payload())
		}
		csNone(t, c, time.Second)

		// An explicit earliest position is honoured too.
		opts.SubscriptionName, opts.SubscriptionInitialPosition = "sub-2", SubscriptionPositionEarliest
		e, err := v.c.Subscribe(opts)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		got := csNames(csRecvN(t, e, 3))
		if !slices.Equal(got, []string{"msg-content-1", "msg-content-2", "msg-content-3"}) {
			t.Fatalf("earliest: %v", got)
		}
	})
}

// TestConsumerWithoutEventTime: a message without event time has
// EventTime() time.Unix(0, 0), as the official client (0 means none), in a
// batch or not; its publish time is set.
func TestConsumerWithoutEventTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := bubbleEnv(t)
		for _, batched := range []bool{false, true} {
			topic := csTopic()
			c := v.subscribe(ConsumerOptions{Topic: topic})
			p, err := v.c.CreateProducer(ProducerOptions{Topic: topic, DisableBatching: !batched})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("test")}); err != nil {
				t.Fatal(err)
			}
			p.Close()
			m := csRecv(t, c)
			if m.EventTime().UnixNano() != 0 || !m.EventTime().Equal(time.Unix(0, 0)) {
				t.Fatalf("batched=%v: EventTime %v, want time.Unix(0, 0)", batched, m.EventTime())
			}
			if m.EventTime().IsZero() {
				t.Fatalf("batched=%v: EventTime is the zero time.Time, the official client returns time.Unix(0, 0)", batched)
			}
			if m.PublishTime().UnixMilli() <= 0 || string(m.Payload()) != "test" {
				t.Fatalf("batched=%v: publish time %v, payload %q", batched, m.PublishTime(), m.Payload())
			}
		}
	})
}

// TestConsumerEventTimeUnixZeroIsNone: time.Unix(0, 0), which the official
// client returns for "no event time", sent back means none too.
func TestConsumerEventTimeUnixZeroIsNone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := bubbleEnv(t)
		topic := csTopic()
		c := v.subscribe(ConsumerOptions{Topic: topic})
		p, err := v.c.CreateProducer(ProducerOptions{Topic: topic, DisableBatching: true})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		for _, et := range []time.Time{time.Unix(0, 0), time.UnixMilli(1234)} {
			if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("x"), EventTime: et}); err != nil {
				t.Fatal(err)
			}
			if got := csRecv(t, c).EventTime(); !got.Equal(et) {
				t.Fatalf("sent event time %v, received %v", et, got)
			}
		}
	})
}

// foreignID is a MessageID implemented by the caller, as the official
// test's myMessageID: only Serialize works (the official one's other
// methods recurse forever).
type foreignID struct{ data []byte }

func (id *foreignID) Serialize() []byte   { return id.data }
func (id *foreignID) LedgerID() int64     { panic("foreignID: only Serialize may be called") }
func (id *foreignID) EntryID() int64      { panic("foreignID: only Serialize may be called") }
func (id *foreignID) BatchIdx() int32     { panic("foreignID: only Serialize may be called") }
func (id *foreignID) BatchSize() int32    { panic("foreignID: only Serialize may be called") }
func (id *foreignID) PartitionIdx() int32 { panic("foreignID: only Serialize may be called") }
func (id *foreignID) String() string      { return fmt.Sprintf("foreign(%x)", id.data) }

// TestConsumerForeignMessageID: Seek, AckID, AckIDCumulative and NackID
// accept a caller's MessageID through its Serialize method, chunk ids
// included.
func TestConsumerForeignMessageID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := bubbleEnv(t)
		st := makeSeekTopic(t, v, true)
		c := v.subscribe(ConsumerOptions{Topic: st.topic})
		msgs := csRecvN(t, c, len(seekMsgs))
		foreign := func(name string) MessageID { return &foreignID{data: st.sent[name].Serialize()} }
		if err := c.AckID(foreign("c0")); err != nil {
			t.Fatal(err)
		}
		if err := c.AckIDCumulative(foreign("p5")); err != nil {
			t.Fatal(err)
		}
		c.NackID(foreign("p3"))
		v.waitCursor(st.part, "s", allAcked(msgs[len(msgs)-1].ID()))
		if err := c.Seek(foreign("c1")); err != nil {
			t.Fatal(err)
		}
		st.check(t, csRecv(t, c), "c1")
		if err := c.Seek(&foreignID{data: []byte("not an id")}); err == nil {
			t.Fatal("seek to a foreign id that does not deserialize succeeded")
		}
	})
}
