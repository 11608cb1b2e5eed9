package pulsar

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

// AckIDList acknowledges every id on the broker; after Close every id
// comes back in an AckError with the official text (the last steps of the
// official TestAckIDList and TestMultiTopicAckIDList), for a partitioned
// topic and for a consumer of two topics.
func TestAckIDList(t *testing.T) {
	for _, multi := range []bool{false, true} {
		t.Run(fmt.Sprintf("multi-topic=%v", multi), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { testAckIDList(t, multi) })
		})
	}
}

func testAckIDList(t *testing.T, multi bool) {
	v := newCSEnv(t)
	topics := []string{csTopic()}
	opts := ConsumerOptions{Topic: topics[0], Type: Shared, AckWithResponse: true}
	if multi {
		topics = append(topics, csTopic())
		opts = ConsumerOptions{Topics: topics, Type: Shared, AckWithResponse: true}
	} else if err := v.b.CreatePartitionedTopic(topics[0], 2); err != nil {
		t.Fatal(err)
	}
	for _, topic := range topics {
		p := testProducer(t, v.c, ProducerOptions{Topic: topic, DisableBatching: true})
		for i := range 6 / len(topics) {
			if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: fmt.Appendf(nil, "m%d", i), Key: fmt.Sprint(i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	c := v.subscribe(opts)
	ms := csRecvN(t, c, 6)
	ids := make([]MessageID, len(ms))
	for i, m := range ms {
		ids[i] = m.ID()
	}
	if err := c.AckIDList(ids); err != nil {
		t.Fatal(err)
	}
	c.Close()
	// Nothing is redelivered to the subscription.
	c2 := v.subscribe(opts)
	csNone(t, c2, 5*time.Second)
	err := c.AckIDList(ids)
	var ae AckError
	if !errors.As(err, &ae) || len(ae) != len(ids) {
		t.Fatalf("AckIDList after Close: %v", err)
	}
	for _, id := range ids {
		if !errors.Is(ae[id], ErrConsumerClosed) || ae[id].Error() != "consumer state is closed" {
			t.Fatalf("id %v: %v", id, ae[id])
		}
	}
	if c.AckIDList(nil) != nil {
		t.Fatal("AckIDList(nil) failed")
	}
}

func TestGetLastMessageIDs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		if err := v.b.CreatePartitionedTopic(topic, 3); err != nil {
			t.Fatal(err)
		}
		c := v.subscribe(ConsumerOptions{Topic: topic})
		p := testProducer(t, v.c, ProducerOptions{Topic: topic, DisableBatching: true,
			MessageRouter: func(*ProducerMessage, TopicMetadata) int { return 1 }})
		sent, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("x")})
		if err != nil {
			t.Fatal(err)
		}
		ids, err := c.GetLastMessageIDs()
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != 3 {
			t.Fatalf("%d ids for 3 partitions", len(ids))
		}
		for i, id := range ids {
			if want := fmt.Sprintf("%s-partition-%d", topic, i); id.Topic() != want {
				t.Fatalf("id %d of topic %s, want %s", i, id.Topic(), want)
			}
			if i == 1 {
				if id.LedgerID() != sent.LedgerID() || id.EntryID() != sent.EntryID() || id.PartitionIdx() != 1 {
					t.Fatalf("partition 1's last id %v, sent %v", id, sent)
				}
			} else if id.EntryID() >= 0 {
				t.Fatalf("empty partition %d has last id %v", i, id)
			}
		}
	})
}

// Unsubscribe is refused while another consumer shares the subscription;
// UnsubscribeForce deletes it and disconnects the other.
func TestUnsubscribeForce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		c1 := v.subscribe(ConsumerOptions{Topic: topic, Type: Shared})
		_ = v.subscribe(ConsumerOptions{Topic: topic, Type: Shared})
		var se *ServerError
		if err := c1.Unsubscribe(); !errors.As(err, &se) || se.Code != "ConsumerBusy" {
			t.Fatalf("Unsubscribe with another consumer: %v, want ConsumerBusy", err)
		}
		if err := c1.UnsubscribeForce(); err != nil {
			t.Fatal(err)
		}
		if _, _, err := v.b.Cursor(topicFull(topic), "s"); err == nil {
			t.Fatal("the subscription survived UnsubscribeForce")
		}
	})
}
