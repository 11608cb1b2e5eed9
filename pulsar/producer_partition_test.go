package pulsar

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
)

func TestHashes(t *testing.T) {
	// Java's "hello".hashCode() is 99162322.
	if h := javaStringHash("hello"); h != 99162322 {
		t.Errorf("javaStringHash(hello) = %d", h)
	}
	// The wants were computed once with github.com/spaolacci/murmur3 v1.1.0
	// as murmur3.Sum32([]byte(in)) & 0x7fffffff (the official Go client's
	// Murmur3_32Hash), so the root module need not require that library.
	for _, v := range []struct {
		in   string
		want uint32
	}{
		{"", 0},
		{"a", 1009084850},
		{"ab", 465557343},
		{"abc", 870159354},
		{"abcd", 1139631978},
		{"abcde", 1755028214},
		{"key-17", 889600087},
		{"ünïcödé", 2069557956},
		{"a much longer key than four bytes", 1790540367},
	} {
		if got := murmur3Hash32(v.in); got != v.want {
			t.Errorf("murmur3Hash32(%q) = %d, want %d", v.in, got, v.want)
		}
	}
}

func TestProducerPartitionRouting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c := testClient(t, b)
		const parts = 3
		topic := testTopic(t)
		if err := b.CreatePartitionedTopic(topic, parts); err != nil {
			t.Fatal(err)
		}
		rc := rawSubscribe(t, b, topic, parts)

		// Round robin without batching: one message per partition in turn.
		p := testProducer(t, c, ProducerOptions{Topic: topic, DisableBatching: true})
		seen := map[int32]int{}
		for i := range 9 {
			id, err := p.Send(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: []byte(fmt.Sprint(i))})
			if err != nil {
				t.Fatal(err)
			}
			seen[id.PartitionIdx()]++
		}
		for i := range int32(parts) {
			if seen[i] != 3 {
				t.Errorf("round robin: partition %d got %d of 9", i, seen[i])
			}
		}

		// Keys: hash mod partitions, with each scheme; the ordering key wins.
		for _, scheme := range []HashingScheme{JavaStringHash, Murmur3_32Hash} {
			hash := javaStringHash
			if scheme == Murmur3_32Hash {
				hash = murmur3Hash32
			}
			pk := testProducer(t, c, ProducerOptions{Topic: topic, HashingScheme: scheme})
			for i := range 20 {
				key := fmt.Sprintf("key-%d", i)
				m := &ProducerMessage{Payload: []byte(key), Key: "other"}
				m.OrderingKey = key
				if i%2 == 0 {
					m.Key, m.OrderingKey = key, ""
				}
				id, err := pk.Send(ctxFor(t, 5*time.Second), m)
				if err != nil {
					t.Fatal(err)
				}
				if want := int32(hash(key) % parts); id.PartitionIdx() != want {
					t.Errorf("scheme %d key %s: partition %d, want %d", scheme, key, id.PartitionIdx(), want)
				}
			}
		}

		// A custom router.
		pr := testProducer(t, c, ProducerOptions{Topic: topic, MessageRouter: func(m *ProducerMessage, md TopicMetadata) int {
			if md.NumPartitions() != parts {
				t.Errorf("router saw %d partitions", md.NumPartitions())
			}
			return 2
		}})
		id, err := pr.Send(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: []byte("routed")})
		if err != nil || id.PartitionIdx() != 2 {
			t.Errorf("custom router: %v, %v", id, err)
		}
		bad := testProducer(t, c, ProducerOptions{Topic: topic, MessageRouter: func(*ProducerMessage, TopicMetadata) int { return 7 }})
		if _, err := bad.Send(ctxFor(t, 5*time.Second), &ProducerMessage{}); err == nil {
			t.Errorf("router out of range accepted")
		}
		got := rc.wait(9+40+1, 10*time.Second)
		for _, g := range got {
			if g.ID.PartitionIdx() < 0 {
				t.Errorf("message without partition index: %v", g.ID)
			}
		}
		if st := p.Stats(); st.MessagesSent != 9 {
			t.Errorf("partitioned stats %+v", st)
		}
		if p.LastSequenceID() != 2 {
			t.Errorf("LastSequenceID %d, want 2 (three messages per partition)", p.LastSequenceID())
		}
	})
}

// TestProducerPartitionRoutingBatches: with batching, keyless messages
// stay on one partition for a batch's worth, then move on.
func TestProducerPartitionRoutingBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c := testClient(t, b)
		topic := testTopic(t)
		if err := b.CreatePartitionedTopic(topic, 4); err != nil {
			t.Fatal(err)
		}
		p := testProducer(t, c, ProducerOptions{Topic: topic, BatchingMaxMessages: 10, BatchingMaxPublishDelay: time.Hour})
		var msgs []*ProducerMessage
		for range 40 {
			msgs = append(msgs, &ProducerMessage{Payload: []byte("x")})
		}
		ids := sendAllAsync(t, p, msgs)
		perPart := map[int32]int{}
		for i, id := range ids {
			perPart[id.PartitionIdx()]++
			if i%10 != 0 && id.PartitionIdx() != ids[i-1].PartitionIdx() {
				t.Errorf("message %d switched partition inside a batch", i)
			}
		}
		if len(perPart) != 4 {
			t.Errorf("partitions used: %v", perPart)
		}
	})
}
