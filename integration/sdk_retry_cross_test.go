package integration

import (
	"bytes"
	"regexp"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar"
)

// letterMsg is what both clients' messages have that a retry or dead
// letter is checked by.
type letterMsg interface {
	Payload() []byte
	Key() string
	OrderingKey() string
	Properties() map[string]string
	EventTime() time.Time
	ProducerName() string
}

// letterWant is what a letter must carry: the original message's body,
// keys, event time and properties, and the retry properties.
type letterWant struct {
	payload    []byte
	eventMs    int64
	realTopic  string
	origin     string // the original id's String(), as the client that moved it printed it
	reconsumes string // "" for a nack-path dead letter
	delayMs    string
	producer   *regexp.Regexp // nil: not checked
}

func checkLetter(t *testing.T, what string, m letterMsg, w letterWant) {
	t.Helper()
	p := m.Properties()
	require.True(t, bytes.Equal(m.Payload(), w.payload), "%s: payload differs (%d bytes)", what, len(m.Payload()))
	require.Equal(t, "k", m.Key(), what)
	require.Equal(t, "ok", m.OrderingKey(), what)
	require.Equal(t, w.eventMs, m.EventTime().UnixMilli(), what)
	require.Equal(t, "v", p["app"], "%s: %v", what, p)
	require.Equal(t, w.realTopic, p["REAL_TOPIC"], "%s: %v", what, p)
	require.Equal(t, w.origin, p["ORIGIN_MESSAGE_ID"], "%s: %v", what, p)
	require.Equal(t, w.origin, p["ORIGIN_MESSAGE_IDY_TIME"], "%s: %v", what, p)
	if w.reconsumes != "" {
		require.Equal(t, w.reconsumes, p["RECONSUMETIMES"], "%s: %v", what, p)
		require.Equal(t, w.delayMs, p["DELAY_TIME"], "%s: %v", what, p)
	}
	if w.producer != nil {
		require.Regexp(t, w.producer, m.ProducerName(), what)
	}
}

// The official client's constants and pulsargo's are the same strings.
var _ = [1]struct{}{}[len(official.SysPropertyOriginMessageID)-len(pulsar.SysPropertyOriginMessageID)]

func officialPeek(t *testing.T, c official.Client, topic string) official.Consumer {
	t.Helper()
	cons, err := c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "official-peek",
		SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
	require.NoError(t, err)
	t.Cleanup(cons.Close)
	return cons
}

func officialRecv(t *testing.T, c official.Consumer) official.Message {
	t.Helper()
	return receiveN(t, c, 1)[0]
}

func sdkRecv(t *testing.T, c pulsar.Consumer) pulsar.Message {
	t.Helper()
	return sdkReceiveN(t, c, 1)[0]
}

// TestRetryCrossSDKToOfficial: messages that pulsargo's consumer retries
// (ReconsumeLater with RetryEnable), dead-letters after its retries and
// dead-letters after its nacks are read by the official client from the
// "-RETRY" and "-DLQ" topics with the properties the official client sets
// itself; a chunked message (larger than the broker's max message size)
// makes the whole trip.
func TestRetryCrossSDKToOfficial(t *testing.T) {
	b := startStub(t, brokerstub.Options{MaxMessageSize: 64 << 10})
	ours, theirs := sdkClient(t, b.URL()), officialClient(t, b.URL())
	for _, tc := range []struct {
		name    string
		payload []byte
	}{{"small", []byte("job")}, {"chunked", randomBytes(t, 300<<10)}} {
		t.Run(tc.name, func(t *testing.T) {
			topic := newTopic(t)
			prod, err := ours.CreateProducer(pulsar.ProducerOptions{Topic: topic, EnableChunking: true, DisableBatching: true})
			require.NoError(t, err)
			defer prod.Close()
			event := time.UnixMilli(1_700_000_000_123)
			msg := &pulsar.ProducerMessage{Payload: tc.payload, Key: "k", OrderingKey: "ok", EventTime: event,
				Properties: map[string]string{"app": "v"}}
			_, err = prod.Send(ctxT(t), msg)
			require.NoError(t, err)

			cons := sdkSubscribe(t, ours, pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "s", Name: "w",
				Type: pulsar.Shared, RetryEnable: true, DLQ: &pulsar.DLQPolicy{MaxDeliveries: 1}})
			rlq, dlq := officialPeek(t, theirs, topic+"-s-RETRY"), officialPeek(t, theirs, topic+"-s-DLQ")
			m := sdkRecv(t, cons)
			origin := m.ID().String()
			cons.ReconsumeLater(m, 300*time.Millisecond)
			want := letterWant{payload: tc.payload, eventMs: event.UnixMilli(), realTopic: topic, origin: origin,
				reconsumes: "1", delayMs: "300"}
			checkLetter(t, "retry letter", officialRecv(t, rlq), want)

			again := sdkRecv(t, cons)
			require.Equal(t, topic+"-s-RETRY", again.Topic())
			cons.ReconsumeLaterWithCustomProperties(again, map[string]string{"why": "gave up"}, time.Second)
			dead := officialRecv(t, dlq)
			want.reconsumes, want.delayMs = "2", "1000"
			want.producer = regexp.MustCompile("^" + regexp.QuoteMeta(topic+"-s-w-") + "[a-z]{5}-DLQ$")
			checkLetter(t, "dead letter", dead, want)
			require.Equal(t, "gave up", dead.Properties()["why"])

			// The nack path: delivered MaxDeliveries times, then moved
			// (both copies of the message on the topic).
			nacker := sdkSubscribe(t, ours, pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "n", Name: "x", Type: pulsar.Shared,
				NackRedeliveryDelay: 100 * time.Millisecond, DLQ: &pulsar.DLQPolicy{MaxDeliveries: 1}})
			_, err = prod.Send(ctxT(t), msg)
			require.NoError(t, err)
			origins := map[string]bool{}
			for _, m := range sdkReceiveN(t, nacker, 2) {
				origins[m.ID().String()] = true
				nacker.Nack(m)
			}
			ndlq := officialPeek(t, theirs, topic+"-n-DLQ")
			for _, d := range receiveN(t, ndlq, 2) {
				o := d.Properties()["ORIGIN_MESSAGE_ID"]
				require.True(t, origins[o], "nack dead letter from %q, want one of %v", o, origins)
				delete(origins, o)
				checkLetter(t, "nack dead letter", d, letterWant{payload: tc.payload, eventMs: event.UnixMilli(), realTopic: topic, origin: o,
					producer: regexp.MustCompile("^" + regexp.QuoteMeta(topic+"-n-x-") + "[a-z]{5}-DLQ$")})
			}
		})
	}
}

// TestRetryCrossOfficialToSDK: a message the official client retries is
// read by pulsargo from the retry letter topic with the official
// properties; pulsargo's RetryEnable consumer on the same subscription
// takes over, counts on from the official RECONSUMETIMES and keeps its
// ORIGIN_MESSAGE_ID, and the dead letter it writes reads the same in both
// clients.
func TestRetryCrossOfficialToSDK(t *testing.T) {
	b := startStub(t)
	ours, theirs := sdkClient(t, b.URL()), officialClient(t, b.URL())
	topic := newTopic(t)
	prod, err := theirs.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	defer prod.Close()
	event := time.UnixMilli(1_700_000_000_456)
	_, err = prod.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("job"), Key: "k", OrderingKey: "ok",
		EventTime: event, Properties: map[string]string{"app": "v"}})
	require.NoError(t, err)

	oc, err := theirs.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s", Name: "o", Type: official.Shared,
		SubscriptionInitialPosition: official.SubscriptionPositionEarliest, RetryEnable: true,
		DLQ: &official.DLQPolicy{MaxDeliveries: 2}})
	require.NoError(t, err)
	m := officialRecv(t, oc)
	origin := m.ID().String()
	peekR := sdkSubscribe(t, ours, pulsar.ConsumerOptions{Topic: topic + "-s-RETRY", SubscriptionName: "peek"})
	oc.ReconsumeLater(m, 200*time.Millisecond)
	want := letterWant{payload: []byte("job"), eventMs: event.UnixMilli(), realTopic: topic, origin: origin,
		reconsumes: "1", delayMs: "200"}
	checkLetter(t, "official retry letter", sdkRecv(t, peekR), want)
	// The official client acknowledges the original once the letter is
	// stored, asynchronously: wait for it before handing over.
	waitAcked(t, b, topic, "s", m.ID())
	oc.Close() // its copy of the retry letter goes back to the subscription

	cons := sdkSubscribe(t, ours, pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "s", Name: "w",
		Type: pulsar.Shared, RetryEnable: true, DLQ: &pulsar.DLQPolicy{MaxDeliveries: 2}})
	peekD := sdkSubscribe(t, ours, pulsar.ConsumerOptions{Topic: topic + "-s-DLQ", SubscriptionName: "peek"})
	officialD := officialPeek(t, theirs, topic+"-s-DLQ")
	letter := sdkRecv(t, cons)
	require.Equal(t, topic+"-s-RETRY", letter.Topic())
	cons.ReconsumeLater(letter, 100*time.Millisecond)
	want.reconsumes, want.delayMs = "2", "100"
	again := sdkRecv(t, cons)
	checkLetter(t, "pulsargo retry letter", again, want)
	checkLetter(t, "pulsargo retry letter (peek)", sdkRecv(t, peekR), want)
	cons.ReconsumeLater(again, 0) // a third time: past MaxDeliveries
	want.reconsumes, want.delayMs = "3", "0"
	want.producer = regexp.MustCompile("^" + regexp.QuoteMeta(topic+"-s-w-") + "[a-z]{5}-DLQ$")
	checkLetter(t, "dead letter (pulsargo)", sdkRecv(t, peekD), want)
	checkLetter(t, "dead letter (official)", officialRecv(t, officialD), want)
}
