package integration

import (
	"fmt"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
)

// TestOfficialPatternConsumerDiscoversNewTopic: the official client's
// pattern consumer lists the namespace with GET_TOPICS_OF_NAMESPACE and, on
// its next discovery, subscribes to a topic a producer created since.
func TestOfficialPatternConsumerDiscoversNewTopic(t *testing.T) {
	b := startStub(t)
	client := officialClient(t, b.URL())
	base := newTopic(t)
	send := func(topic, payload string) {
		p, err := client.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true})
		require.NoError(t, err)
		defer p.Close()
		_, err = p.Send(ctxT(t), &official.ProducerMessage{Payload: []byte(payload)})
		require.NoError(t, err)
	}
	send(base+"-a", "a")
	send("persistent://public/default/unrelated", "x")

	cons, err := client.Subscribe(official.ConsumerOptions{
		TopicsPattern:               base + "-.*",
		SubscriptionName:            "s",
		AutoDiscoveryPeriod:         50 * time.Millisecond,
		SubscriptionInitialPosition: official.SubscriptionPositionEarliest,
	})
	require.NoError(t, err)
	defer cons.Close()
	assert.Equal(t, "a", string(receiveN(t, cons, 1)[0].Payload()))

	// A topic created after the subscription is found and read from its start.
	send(base+"-b", "b")
	m := receiveN(t, cons, 1)[0]
	assert.Equal(t, "b", string(m.Payload()))
	assert.Equal(t, base+"-b", m.Topic())
}

// TestOfficialDedupStoresResendOnce: with broker deduplication a message
// resent with the same producer name and sequence id is acknowledged and
// stored once, also after a restart, and a new producer of that name
// resumes after the last stored sequence id.
func TestOfficialDedupStoresResendOnce(t *testing.T) {
	b := startStub(t, brokerstub.Options{BrokerDeduplicationEnabled: true})
	client := officialClient(t, b.URL())
	topic := newTopic(t)
	prod, err := client.CreateProducer(official.ProducerOptions{Topic: topic, Name: "dedup-p", DisableBatching: true})
	require.NoError(t, err)
	sendSeq := func(p official.Producer, seq int64, payload string) official.MessageID {
		id, err := p.Send(ctxT(t), &official.ProducerMessage{Payload: []byte(payload), SequenceID: &seq})
		require.NoError(t, err)
		return id
	}
	for i := range int64(3) {
		sendSeq(prod, i, fmt.Sprint("m", i))
	}
	dup := sendSeq(prod, 1, "m1-again")
	assert.Equal(t, int64(-1), dup.LedgerID(), "a duplicate's receipt names -1:-1, as Pulsar's")
	prod.Close()

	require.NoError(t, b.Restart())
	prod, err = client.CreateProducer(official.ProducerOptions{Topic: topic, Name: "dedup-p", DisableBatching: true})
	require.NoError(t, err)
	defer prod.Close()
	sendSeq(prod, 2, "m2-again") // duplicate across the restart
	// No sequence id given: the client continues from last_sequence_id (2);
	// had it started again at 0, m3 would be dropped as a duplicate.
	_, err = prod.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("m3")})
	require.NoError(t, err)

	// What is stored, read once from the start: each message once.
	r, err := client.CreateReader(official.ReaderOptions{Topic: topic, StartMessageID: official.EarliestMessageID()})
	require.NoError(t, err)
	defer r.Close()
	var got []string
	for r.HasNext() {
		m, err := r.Next(ctxT(t))
		require.NoError(t, err)
		got = append(got, string(m.Payload()))
	}
	assert.Equal(t, []string{"m0", "m1", "m2", "m3"}, got)
}
