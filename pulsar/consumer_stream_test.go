package pulsar

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/messageid"
)

// streamStub is a stub with small frames (chunks of about 64 KiB) and a
// client for it.
func streamStub(t *testing.T) (*brokerstub.Broker, Client) {
	t.Helper()
	b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, MaxMessageSize: 64 << 10})
	return b, testClient(t, b, ClientOptions{})
}

// sendAsync sends payload with SendReader on its own goroutine.
func sendAsync(t *testing.T, p Producer, msg *ProducerMessage, payload []byte) <-chan MessageID {
	t.Helper()
	out := make(chan MessageID, 1)
	go func() {
		id, err := p.SendReader(ctxFor(t, 30*time.Second), msg, bytes.NewReader(payload), int64(len(payload)))
		if err != nil {
			t.Errorf("SendReader: %v", err)
		}
		out <- id
	}()
	return out
}

// readStream reads s whole, checking that the consumer never holds more
// than limit chunks' worth of bytes beyond what was read.
func readStream(t *testing.T, s *MessageStream) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, s); err != nil {
		t.Fatalf("reading the stream: %v", err)
	}
	return buf.Bytes()
}

// TestConsumerReceiveStream: a chunked message larger than
// MaxPendingChunkedBytes is read as a stream while it is sent, with the
// id SendReader returned once read to EOF, and acknowledged once; Receive
// of such a message fails with ErrMessageTooLarge naming the option (and
// the message comes back); an ordinary message is a stream too.
func TestConsumerReceiveStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, c := streamStub(t)
		topic := testTopic(t)
		cons, err := c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "s", MaxPendingChunkedBytes: 256 << 10,
			NackRedeliveryDelay: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer cons.Close()
		p := testProducer(t, c, ProducerOptions{Topic: topic, EnableChunking: true})
		big := payloadOf(2<<20, 7)
		sent := sendAsync(t, p, &ProducerMessage{Key: "k", Properties: map[string]string{"a": "b"}}, big)

		s, err := cons.ReceiveStream(ctxFor(t, 30*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if !s.Streamed() || s.Size() != int64(len(big)) || s.Key() != "k" || s.Properties()["a"] != "b" || s.Payload() != nil {
			t.Fatalf("stream: streamed %v size %d key %q props %v payload %d", s.Streamed(), s.Size(), s.Key(), s.Properties(), len(s.Payload()))
		}
		if err := cons.Ack(s); !errors.Is(err, ErrStreamNotRead) {
			t.Errorf("ack before EOF: %v", err)
		}
		if got := readStream(t, s); !bytes.Equal(got, big) {
			t.Fatalf("read %d bytes, want the %d sent", len(got), len(big))
		}
		id := <-sent
		if messageid.Compare(s.ID(), id) != 0 {
			t.Errorf("stream id %v, SendReader returned %v", s.ID(), id)
		}
		if err := cons.Ack(s); err != nil {
			t.Fatal(err)
		}
		_ = s.Close()

		// Receive refuses a streamed message, loudly, and gives it back.
		sent = sendAsync(t, p, &ProducerMessage{}, big)
		_, err = cons.Receive(ctxFor(t, 30*time.Second))
		if !errors.Is(err, ErrMessageTooLarge) || !bytes.Contains([]byte(err.Error()), []byte("MaxPendingChunkedBytes")) {
			t.Fatalf("Receive of a streamed message: %v", err)
		}
		id = <-sent
		s, err = cons.ReceiveStream(ctxFor(t, 30*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if got := readStream(t, s); !bytes.Equal(got, big) || messageid.Compare(s.ID(), id) != 0 {
			t.Fatalf("redelivered: %d bytes, id %v want %v", len(got), s.ID(), id)
		}
		if s.RedeliveryCount() == 0 {
			t.Errorf("the message given back by Receive came back with redelivery count 0")
		}
		if err := cons.Ack(s); err != nil {
			t.Fatal(err)
		}

		// An ordinary message.
		if _, err := p.Send(ctxFor(t, 10*time.Second), &ProducerMessage{Payload: []byte("small")}); err != nil {
			t.Fatal(err)
		}
		s, err = cons.ReceiveStream(ctxFor(t, 10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if got := readStream(t, s); string(got) != "small" || s.Streamed() {
			t.Fatalf("small message as a stream: %q streamed %v", got, s.Streamed())
		}
		if err := cons.Ack(s); err != nil {
			t.Fatal(err)
		}
		waitAckedThrough(t, b, topic, "s", s.ID())
	})
}

// waitAckedThrough waits until the subscription has everything through
// id acknowledged (mark-delete there, nothing acknowledged beyond it).
func waitAckedThrough(t *testing.T, b *brokerstub.Broker, topic, sub string, id MessageID) {
	t.Helper()
	last := messageid.LastChunk(id)
	want := brokerstub.Position{Ledger: last.LedgerID(), Entry: last.EntryID()}
	deadline := time.Now().Add(10 * time.Second)
	for {
		cur, _, err := b.Cursor(topic, sub)
		if err == nil && cur.MarkDelete == want && len(cur.Ranges) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("cursor of %s: %+v %v, want everything through %v acknowledged", sub, cur, err, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
