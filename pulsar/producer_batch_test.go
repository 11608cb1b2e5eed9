package pulsar

import (
	"bytes"
	"fmt"
	"os"
	"runtime/pprof"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/messageid"
)

// sendAllAsync sends msgs with SendAsync and waits for every callback.
func sendAllAsync(t *testing.T, p Producer, msgs []*ProducerMessage) []MessageID {
	t.Helper()
	ids := make([]MessageID, len(msgs))
	errs := make(chan error, len(msgs))
	for i, m := range msgs {
		p.SendAsync(ctxFor(t, 10*time.Second), m, func(id MessageID, _ *ProducerMessage, err error) {
			ids[i] = id
			errs <- err
		})
	}
	for range msgs {
		select {
		case err := <-errs:
			if err != nil {
				t.Errorf("send: %v", err)
			}
		case <-time.After(10 * time.Second):
			if os.Getenv("PULSARGO_DUMP") != "" {
				_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
			}
			t.Errorf("callbacks missing; stats %+v", p.Stats())
			return ids
		}
	}
	return ids
}

func TestProducerBatchMaxMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c := testClient(t, b)
		topic := testTopic(t)
		rc := rawSubscribe(t, b, topic, 0)
		p := testProducer(t, c, ProducerOptions{Topic: topic, BatchingMaxMessages: 5, BatchingMaxPublishDelay: time.Hour})
		var msgs []*ProducerMessage
		for i := range 12 {
			msgs = append(msgs, &ProducerMessage{Payload: []byte(fmt.Sprint(i)), Properties: map[string]string{"i": fmt.Sprint(i)}})
		}
		done := make(chan []MessageID)
		go func() { done <- sendAllAsync(t, p, msgs) }()
		// Two full batches go at once; the last two messages wait for Flush.
		rc.wait(10, 5*time.Second)
		synctest.Wait() // the bubble is idle: nothing more is on its way before Flush
		if rc.count() != 10 {
			t.Fatalf("%d messages before Flush, want 10", rc.count())
		}
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		ids := <-done
		got := rc.wait(12, 5*time.Second)
		for i, g := range got {
			if string(g.Payload) != fmt.Sprint(i) || g.Entry != i/5 || g.Single == nil ||
				g.Single.GetSequenceId() != uint64(i) || g.Single.GetProperties()[0].GetValue() != fmt.Sprint(i) {
				t.Errorf("message %d: %q entry %d smm %v", i, g.Payload, g.Entry, g.Single)
			}
			if messageid.Compare(ids[i], g.ID) != 0 || ids[i].BatchIdx() != int32(i%5) {
				t.Errorf("message %d: id %v, consumer saw %v", i, ids[i], g.ID)
			}
			if g.Meta.GetSequenceId() != uint64(i/5*5) {
				t.Errorf("message %d: entry sequence id %d", i, g.Meta.GetSequenceId())
			}
		}
		if st := p.Stats(); st.EntriesSent != 3 || st.MessagesSent != 12 {
			t.Errorf("stats %+v", st)
		}
		if p.LastSequenceID() != 11 {
			t.Errorf("LastSequenceID %d", p.LastSequenceID())
		}
	})
}

func TestProducerBatchMaxBytesAndDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c := testClient(t, b)
		topic := testTopic(t)
		rc := rawSubscribe(t, b, topic, 0)
		p := testProducer(t, c, ProducerOptions{Topic: topic, BatchingMaxSize: 1000, BatchingMaxPublishDelay: 20 * time.Millisecond})
		var msgs []*ProducerMessage
		for i := range 10 {
			msgs = append(msgs, &ProducerMessage{Payload: bytes.Repeat([]byte{byte(i)}, 300)})
		}
		// No Flush: the delay timer sends the last batch.
		sendAllAsync(t, p, msgs)
		got := rc.wait(10, 5*time.Second)
		entries := map[int]int{}
		for i, g := range got {
			if g.Payload[0] != byte(i) || len(g.Payload) != 300 {
				t.Fatalf("message %d", i)
			}
			entries[g.Entry]++
		}
		for e, n := range entries {
			if n > 3 {
				t.Errorf("entry %d holds %d messages of 300 bytes: over the 1000-byte batch", e, n)
			}
		}
		// A message larger than the batch limit goes alone, after the open batch.
		sendAllAsync(t, p, []*ProducerMessage{{Payload: []byte("small")}, {Payload: make([]byte, 2000)}})
		got = rc.wait(12, 5*time.Second)
		if string(got[10].Payload) != "small" || len(got[11].Payload) != 2000 || got[11].Single != nil {
			t.Errorf("large message after a batch: %q, %d bytes, batched %v", got[10].Payload, len(got[11].Payload), got[11].Single != nil)
		}
	})
}

func TestProducerKeyBasedBatching(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c := testClient(t, b)
		topic := testTopic(t)
		rc := rawSubscribe(t, b, topic, 0)
		p := testProducer(t, c, ProducerOptions{Topic: topic, BatcherBuilderType: KeyBasedBatchBuilder, BatchingMaxPublishDelay: time.Hour})
		var msgs []*ProducerMessage
		keys := []string{"a", "b", "c"}
		for i := range 30 {
			m := &ProducerMessage{Payload: []byte(fmt.Sprint(i)), Key: keys[i%3]}
			if i%3 == 2 {
				m.Key, m.OrderingKey = "ignored", "c"
			}
			msgs = append(msgs, m)
		}
		done := make(chan struct{})
		go func() { sendAllAsync(t, p, msgs); close(done) }()
		synctest.Wait() // every SendAsync has queued its message
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		<-done
		got := rc.wait(30, 5*time.Second)
		keyOf := map[int]string{}
		perKey := map[string][]int{}
		for _, g := range got {
			k := g.Key()
			if len(g.Single.GetOrderingKey()) > 0 {
				k = string(g.Single.GetOrderingKey())
			}
			if prev, ok := keyOf[g.Entry]; ok && prev != k {
				t.Errorf("entry %d mixes keys %q and %q", g.Entry, prev, k)
			}
			keyOf[g.Entry] = k
			var i int
			fmt.Sscan(string(g.Payload), &i)
			perKey[k] = append(perKey[k], i)
			// The entry's metadata carries the key, for Key_Shared dispatch.
			if ek := g.Meta.GetPartitionKey(); k != "c" && ek != k {
				t.Errorf("entry key %q for messages of %q", ek, k)
			}
			if k == "c" && string(g.Meta.GetOrderingKey()) != "c" {
				t.Errorf("entry ordering key %q", g.Meta.GetOrderingKey())
			}
		}
		if len(keyOf) != 3 {
			t.Errorf("%d entries, want 3 (one per key)", len(keyOf))
		}
		for k, is := range perKey {
			for j := 1; j < len(is); j++ {
				if is[j] <= is[j-1] {
					t.Errorf("key %s out of order: %v", k, is)
				}
			}
		}
	})
}

func TestProducerFlushWaitsForReceipts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
		c := testClient(t, b)
		topic := testTopic(t)
		p := testProducer(t, c, ProducerOptions{Topic: topic, BatchingMaxPublishDelay: time.Hour})
		b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
			if ev.Type == "SEND_RECEIPT" {
				return brokerstub.Action{Delay: 100 * time.Millisecond}
			}
			return brokerstub.Action{}
		})
		for range 5 {
			p.SendAsync(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: []byte("x")}, nil)
		}
		start := time.Now()
		if err := p.FlushWithCtx(ctxFor(t, 5*time.Second)); err != nil {
			t.Fatal(err)
		}
		if time.Since(start) < 100*time.Millisecond { // bubble time: exact
			t.Errorf("Flush returned before the receipt")
		}
		if st := p.Stats(); st.MessagesSent != 5 || st.PendingMessages != 0 {
			t.Errorf("after Flush: %+v", st)
		}
		// Flush with an expired context returns its error.
		p.SendAsync(ctxFor(t, 5*time.Second), &ProducerMessage{Payload: []byte("y")}, nil)
		ctx := ctxFor(t, 10*time.Millisecond)
		if err := p.FlushWithCtx(ctx); err == nil {
			t.Errorf("Flush with a short context succeeded before the receipt")
		}
	})
}

// A batch's payload buffer is reused for a later batch once its receipt
// came (producer/batch.go): with many batches in flight, every message
// must still arrive with its own bytes.
func TestProducerReusedBatchBuffersKeepBatchesInFlightIntact(t *testing.T) {
	b := brokerstub.RunT(t)
	c := testClient(t, b)
	topic := testTopic(t)
	rc := rawSubscribe(t, b, topic, 0)
	p := testProducer(t, c, ProducerOptions{Topic: topic, BatchingMaxMessages: 8, BatchingMaxPublishDelay: time.Hour})
	const n = 4000
	msgs := make([]*ProducerMessage, n)
	for i := range msgs {
		msgs[i] = &ProducerMessage{Payload: bytes.Repeat([]byte(fmt.Sprintf("%05d", i)), 100)}
	}
	sendAllAsync(t, p, msgs)
	gots := rc.wait(n, 10*time.Second)
	if len(gots) != n {
		t.Fatalf("received %d of %d", len(gots), n)
	}
	for i, g := range gots {
		if !bytes.Equal(g.Payload, msgs[i].Payload) {
			t.Fatalf("message %d: got %.20q..., want %.20q...", i, g.Payload, msgs[i].Payload)
		}
	}
}
