package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	officialcrypto "github.com/apache/pulsar-client-go/pulsar/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar"
	"github.com/pulsargo/sdk/pulsar/crypto"
)

// The gates of brokerstub (Options.Gates) as Pulsar applies them, with the
// official Go client and with pulsargo. The namespace-policy tests run
// against a real Pulsar too (PULSARGO_TEST_URL and PULSARGO_TEST_ADMIN_URL);
// the broker-config ones need the stub's options and skip there.

// The namespace policy subscription_types_enabled: a subscription of
// another type is refused with NotAllowedError.
func TestRefusalSubscriptionTypesPolicy(t *testing.T) {
	e := newAdminEnv(t)
	ns := policyNamespace(t, e, "subtypes", map[string]string{"subscriptionTypesEnabled": `["Exclusive"]`})
	topic := "persistent://" + ns + "/t"
	oc := officialClient(t, e.url)
	c, err := oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "ex", Type: official.Exclusive})
	require.NoError(t, err)
	c.Close()
	_, err = oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "sh", Type: official.Shared})
	refusedWith(t, err, "NotAllowedError", "doesn't support Shared sub type!")
	_, err = shortClient(t, e.url).Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "sh", Type: pulsar.Shared})
	sdkRefused(t, err, "NotAllowedError", "doesn't support Shared sub type!")
}

// The namespace policy encryption_required: a producer that does not
// encrypt is refused with MetadataError.
func TestRefusalEncryptionRequiredPolicy(t *testing.T) {
	// Mostly waiting (timeouts that must pass, rates, quiet periods), on a
	// broker and clients of its own: it waits beside the other tests.
	t.Parallel()
	e := newAdminEnv(t)
	ns := policyNamespace(t, e, "encreq", map[string]string{"encryptionRequired": "true"})
	topic := "persistent://" + ns + "/t"
	_, err := officialClient(t, e.url).CreateProducer(producerOpts(topic))
	refusedWith(t, err, "MetadataError", "Encryption is required in "+topic)
	_, err = shortClient(t, e.url).CreateProducer(pulsar.ProducerOptions{Topic: topic})
	sdkRefused(t, err, "MetadataError", "Encryption is required in "+topic)
}

// An encrypting pulsargo producer declares it (as the Java client), so a
// namespace that requires encryption takes it and its messages; the
// official Go client v0.19.0 declares nothing, and Pulsar refuses it even
// when it encrypts.
func TestEncryptionRequiredPolicyEncryptingProducer(t *testing.T) {
	e := newAdminEnv(t)
	ns := policyNamespace(t, e, "encok", map[string]string{"encryptionRequired": "true"})
	topic := "persistent://" + ns + "/t"
	pub, priv := encKeyFiles(t, "rsa")
	sc := shortClient(t, e.url)
	cons, err := sc.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "s",
		Decryption: &pulsar.MessageDecryptionInfo{KeyReader: crypto.NewFileKeyReader(pub, priv)}})
	require.NoError(t, err)
	defer cons.Close()
	p, err := sc.CreateProducer(pulsar.ProducerOptions{Topic: topic,
		Encryption: &pulsar.ProducerEncryptionInfo{KeyReader: crypto.NewFileKeyReader(pub, priv), Keys: []string{"app"}}})
	require.NoError(t, err, "an encrypting producer")
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = p.Send(ctx, &pulsar.ProducerMessage{Payload: []byte("sealed")})
	require.NoError(t, err)
	m, err := cons.Receive(ctx)
	require.NoError(t, err)
	assert.Equal(t, "sealed", string(m.Payload()))

	_, err = officialClient(t, e.url).CreateProducer(official.ProducerOptions{Topic: topic,
		Encryption: &official.ProducerEncryptionInfo{KeyReader: officialcrypto.NewFileKeyReader(pub, priv), Keys: []string{"app"}}})
	refusedWith(t, err, "MetadataError", "Encryption is required in "+topic)
}

// The gates as broker configuration (the keys -config reads); stub only.
func TestRefusalGatesBrokerConfig(t *testing.T) {
	// Mostly waiting (timeouts that must pass, rates, quiet periods), on a
	// broker and clients of its own: it waits beside the other tests.
	t.Parallel()
	cfg, err := brokerstub.ParseConfig(strings.NewReader(strings.Join([]string{
		"subscriptionKeySharedEnable=false", "encryptionRequireOnProducer=true",
		"maxSameAddressConsumersPerTopic=1", "subscriptionRedeliveryTrackerEnabled=false",
	}, "\n")))
	require.NoError(t, err)
	require.Empty(t, cfg.Ignored)
	e := newAdminEnv(t, cfg.Options)
	oc := officialClient(t, e.url)
	sc := shortClient(t, e.url)
	topic := newTopic(t)

	_, err = oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "ks", Type: official.KeyShared})
	refusedWith(t, err, "NotAllowedError", "Key_Shared subscription is disabled by broker.")
	_, err = sc.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "ks", Type: pulsar.KeyShared})
	sdkRefused(t, err, "NotAllowedError", "Key_Shared subscription is disabled by broker.")

	_, err = oc.CreateProducer(producerOpts(topic))
	refusedWith(t, err, "MetadataError", "Encryption is required in "+topic)
	_, err = sc.CreateProducer(pulsar.ProducerOptions{Topic: topic})
	sdkRefused(t, err, "MetadataError", "Encryption is required in "+topic)

	cons, err := oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s", Type: official.Shared,
		NackRedeliveryDelay: 100 * time.Millisecond})
	require.NoError(t, err)
	defer cons.Close()
	_, err = oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "other", Type: official.Shared})
	refusedWith(t, err, "ConsumerBusy", "Topic reached max same address consumers limit")
	_, err = sc.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "other", Type: pulsar.Shared})
	sdkRefused(t, err, "ConsumerBusy", "Topic reached max same address consumers limit")

	// No redelivery count: a nacked message comes back with count 0.
	np, err := brokerstub.ParseConfig(strings.NewReader("subscriptionRedeliveryTrackerEnabled=false"))
	require.NoError(t, err)
	e2 := newAdminEnv(t, np.Options)
	oc2 := officialClient(t, e2.url)
	t2 := newTopic(t)
	c2, err := oc2.Subscribe(official.ConsumerOptions{Topic: t2, SubscriptionName: "s", Type: official.Shared,
		NackRedeliveryDelay: 100 * time.Millisecond})
	require.NoError(t, err)
	defer c2.Close()
	p2, err := oc2.CreateProducer(producerOpts(t2))
	require.NoError(t, err)
	defer p2.Close()
	sendN(t, p2, "m", 1)
	first := receiveN(t, c2, 1)[0]
	c2.Nack(first)
	again := receiveN(t, c2, 1)[0]
	assert.Equal(t, first.ID().String(), again.ID().String())
	assert.Zero(t, again.RedeliveryCount(), "subscriptionRedeliveryTrackerEnabled=false")
}

// enablePersistentTopics=false and maxSameAddressProducersPerTopic; stub
// only.
func TestRefusalPersistentOffAndSameAddressProducers(t *testing.T) {
	cfg, err := brokerstub.ParseConfig(strings.NewReader("enablePersistentTopics=false\nmaxSameAddressProducersPerTopic=1\n"))
	require.NoError(t, err)
	e := newAdminEnv(t, cfg.Options)
	oc := officialClient(t, e.url)
	_, err = oc.CreateProducer(producerOpts(newTopic(t)))
	refusedWith(t, err, "NotAllowedError", "Broker is unable to load persistent topic")
	_, err = shortClient(t, e.url).CreateProducer(pulsar.ProducerOptions{Topic: newTopic(t)})
	sdkRefused(t, err, "NotAllowedError", "Broker is unable to load persistent topic")

	np := "non-persistent://public/default/same-addr-" + strings.ReplaceAll(t.Name(), "/", "-")
	p, err := oc.CreateProducer(producerOpts(np))
	require.NoError(t, err)
	defer p.Close()
	_, err = oc.CreateProducer(producerOpts(np))
	refusedWith(t, err, "ProducerBusy", "reached max same address producers limit")
}

// maxActiveTransactionsPerCoordinator: a new transaction over the limit is
// not answered (as Pulsar), so the client's request times out; stub only.
func TestRefusalMaxActiveTransactions(t *testing.T) {
	// Mostly waiting (timeouts that must pass, rates, quiet periods), on a
	// broker and clients of its own: it waits beside the other tests.
	t.Parallel()
	cfg, err := brokerstub.ParseConfig(strings.NewReader("transactionCoordinatorEnabled=true\nmaxActiveTransactionsPerCoordinator=1\n"))
	require.NoError(t, err)
	e := newAdminEnv(t, cfg.Options)
	oc, err := official.NewClient(official.ClientOptions{URL: e.url, EnableTransaction: true,
		OperationTimeout: 2 * time.Second, Logger: quietLogger()})
	require.NoError(t, err)
	defer oc.Close()
	tx, err := oc.NewTransaction(time.Minute)
	require.NoError(t, err)
	_, err = oc.NewTransaction(time.Minute)
	require.Error(t, err, "a second open transaction")
	assert.Contains(t, err.Error(), "request timed out")
	require.NoError(t, tx.Commit(context.Background()))
	tx2, err := oc.NewTransaction(time.Minute)
	require.NoError(t, err, "one ended: room again")
	require.NoError(t, tx2.Abort(context.Background()))

	sc, err := pulsar.NewClient(pulsar.ClientOptions{URL: e.url, EnableTransaction: true, OperationTimeout: 2 * time.Second, Logger: sdkLogger()})
	require.NoError(t, err)
	defer sc.Close()
	stx, err := sc.NewTransaction(time.Minute)
	require.NoError(t, err)
	_, err = sc.NewTransaction(time.Minute)
	assert.ErrorIs(t, err, pulsar.ErrTimeout)
	require.NoError(t, stx.Abort(context.Background()))
}

// maxUnackedMessagesPerBroker with the official client: once the broker's
// check (10 minutes after start, on the stub's fake clock) finds 20
// unacknowledged messages over the limit of 10, the subscription holding
// them (over its share of 5) gets nothing more until its acks take it below
// half its share; stub only.
func TestRefusalMaxUnackedPerBroker(t *testing.T) {
	clk := brokerstub.NewFakeClock(time.Now())
	e := newAdminEnv(t, brokerstub.Options{Clock: clk, Gates: brokerstub.Gates{
		MaxUnackedMessagesPerBroker: 10, MaxUnackedMessagesPerSubscriptionOnBrokerBlocked: 50}})
	oc := officialClient(t, e.url)
	topic := newTopic(t)
	cons, err := oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s", Type: official.Shared})
	require.NoError(t, err)
	defer cons.Close()
	p, err := oc.CreateProducer(producerOpts(topic))
	require.NoError(t, err)
	defer p.Close()
	sendN(t, p, "m", 20)
	got := receiveN(t, cons, 20)
	clk.Advance(10 * time.Minute) // the broker's first check
	sendN(t, p, "late", 1)
	expectNothing(t, cons, 500*time.Millisecond)
	for _, m := range got[:19] {
		require.NoError(t, cons.Ack(m))
	}
	late := receiveN(t, cons, 1)[0]
	assert.Equal(t, "late-0", string(late.Payload()), "after the acks")
}
