package integration

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar"
)

// What Pulsar refuses, brokerstub refuses (issue 32): each row of the issue's
// table with the official Go client and with pulsargo. The namespace-policy
// rows run against a real Pulsar too (PULSARGO_TEST_URL and
// PULSARGO_TEST_ADMIN_URL); the broker-config rows need the stub's options
// and skip there.

// policyNamespace creates a fresh namespace of tenant public and sets its
// policies (admin REST paths below /admin/v2/namespaces/{ns}/ and their JSON
// bodies), waiting until a real broker reads them back.
func policyNamespace(t *testing.T, e *adminEnv, what string, policies map[string]string) string {
	t.Helper()
	ns := newPolicyNamespace(t, e, what)
	for policy, body := range policies {
		path := e.web + "/admin/v2/namespaces/" + ns + "/" + policy
		require.Equal(t, http.StatusNoContent, httpDo(t, http.MethodPost, path, body), "POST %s %s", path, body)
		eventually(t, "policy "+policy+" read back", func() error {
			if code, got, _ := httpGet(t, path); code != http.StatusOK || strings.ReplaceAll(got, " ", "") != body {
				return errorf("GET %s: %d %s", policy, code, got)
			}
			return nil
		})
	}
	return ns
}

// refusedWith checks an official client's error: the broker's code and
// text as the client reports them ("server error: <Code>: <text>").
func refusedWith(t *testing.T, err error, code, text string) {
	t.Helper()
	require.Error(t, err, "accepted; want %s", code)
	assert.Contains(t, err.Error(), code)
	assert.Contains(t, err.Error(), text)
}

// sdkRefused checks a pulsargo error: a *pulsar.ServerError with the code.
func sdkRefused(t *testing.T, err error, code, text string) {
	t.Helper()
	require.Error(t, err, "accepted; want %s", code)
	var se *pulsar.ServerError
	require.ErrorAs(t, err, &se, "%v", err)
	assert.Equal(t, code, se.Code, "%v", err)
	assert.Contains(t, se.Message, text)
}

// shortClient is pulsargo's client with a short operation timeout: the
// codes it retries (ProducerBusy, ConsumerBusy) then fail in time.
func shortClient(t *testing.T, url string) pulsar.Client {
	t.Helper()
	c, err := pulsar.NewClient(pulsar.ClientOptions{URL: url, OperationTimeout: 2 * time.Second, Logger: sdkLogger()})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// A producer, consumer or reader on a topic of a missing tenant or
// namespace is refused; the official client sees TopicNotFound from the
// partitioned-metadata lookup, pulsargo ErrTopicNotfound; the HTTP lookup is
// 404.
func TestRefusalMissingNamespace(t *testing.T) {
	e := newAdminEnv(t)
	oc := officialClient(t, e.url)
	sc := shortClient(t, e.url)
	seq := topicSeq.Add(1)
	for _, topic := range []string{
		fmt.Sprintf("persistent://nosuchtenant-%d/ns/t", seq),
		fmt.Sprintf("persistent://public/nosuchns-%d/t", seq),
	} {
		t.Run(strings.SplitN(strings.TrimPrefix(topic, "persistent://"), "/", 2)[0], func(t *testing.T) {
			_, err := oc.CreateProducer(producerOpts(topic))
			refusedWith(t, err, "TopicNotFound", "")
			_, err = oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
			refusedWith(t, err, "TopicNotFound", "")
			_, err = oc.CreateReader(official.ReaderOptions{Topic: topic, StartMessageID: official.EarliestMessageID()})
			refusedWith(t, err, "TopicNotFound", "")

			_, err = sc.CreateProducer(pulsar.ProducerOptions{Topic: topic})
			assert.ErrorIs(t, err, pulsar.ErrTopicNotfound)
			_, err = sc.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
			assert.ErrorIs(t, err, pulsar.ErrTopicNotfound)

			code, body, _ := httpGet(t, e.web+"/lookup/v2/topic/"+strings.Replace(topic, "://", "/", 1))
			assert.Equal(t, http.StatusNotFound, code, body)
		})
	}
}

// maxProducersPerTopic set as a namespace policy through the admin API:
// the second producer is refused with ProducerBusy.
func TestRefusalMaxProducersPolicy(t *testing.T) {
	e := newAdminEnv(t)
	ns := newPolicyNamespace(t, e, "maxprod")
	require.NoError(t, e.admin.Namespaces().SetMaxProducersPerTopic(*mustNamespace(t, ns), 1))
	topic := "persistent://" + ns + "/t"
	oc := officialClient(t, e.url)
	var p official.Producer
	eventually(t, "first producer", func() (err error) { p, err = oc.CreateProducer(producerOpts(topic)); return err })
	defer p.Close()
	eventually(t, "second producer refused", func() error {
		p2, err := oc.CreateProducer(producerOpts(topic))
		if err == nil {
			p2.Close()
			return errors.New("second producer accepted")
		}
		return nil
	})
	_, err := oc.CreateProducer(producerOpts(topic))
	refusedWith(t, err, "ProducerBusy", "reached max producers limit")
	_, err = shortClient(t, e.url).CreateProducer(pulsar.ProducerOptions{Topic: topic})
	sdkRefused(t, err, "ProducerBusy", "reached max producers limit")
}

// maxConsumersPerTopic and maxConsumersPerSubscription as namespace
// policies: ConsumerBusy.
func TestRefusalMaxConsumersPolicies(t *testing.T) {
	e := newAdminEnv(t)
	oc := officialClient(t, e.url)
	t.Run("topic", func(t *testing.T) {
		ns := policyNamespace(t, e, "maxcons", map[string]string{"maxConsumersPerTopic": "1"})
		topic := "persistent://" + ns + "/t"
		c1, err := oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "a", Type: official.Shared})
		require.NoError(t, err)
		defer c1.Close()
		_, err = oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "b", Type: official.Shared})
		refusedWith(t, err, "ConsumerBusy", "Topic reached max consumers limit")
		_, err = shortClient(t, e.url).Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "b", Type: pulsar.Shared})
		sdkRefused(t, err, "ConsumerBusy", "Topic reached max consumers limit")
	})
	t.Run("subscription", func(t *testing.T) {
		ns := policyNamespace(t, e, "maxsubcons", map[string]string{"maxConsumersPerSubscription": "1"})
		topic := "persistent://" + ns + "/t"
		c1, err := oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "a", Type: official.Shared})
		require.NoError(t, err)
		defer c1.Close()
		_, err = oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "a", Type: official.Shared})
		refusedWith(t, err, "ConsumerBusy", "Subscription reached max consumers limit")
		c2, err := oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "b", Type: official.Shared})
		require.NoError(t, err, "another subscription")
		c2.Close()
	})
}

// maxSubscriptionsPerTopic as a namespace policy: NotAllowedError;
// autoSubscriptionCreation off: SubscriptionNotFound.
func TestRefusalSubscriptionPolicies(t *testing.T) {
	e := newAdminEnv(t)
	oc := officialClient(t, e.url)
	t.Run("maxSubscriptionsPerTopic", func(t *testing.T) {
		ns := policyNamespace(t, e, "maxsubs", map[string]string{"maxSubscriptionsPerTopic": "1"})
		topic := "persistent://" + ns + "/t"
		c1, err := oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "a"})
		require.NoError(t, err)
		defer c1.Close()
		_, err = oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "b"})
		refusedWith(t, err, "NotAllowedError", "Exceed the maximum number of subscriptions of the topic")
		_, err = shortClient(t, e.url).Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "b"})
		sdkRefused(t, err, "NotAllowedError", "Exceed the maximum number of subscriptions of the topic")
	})
	t.Run("autoSubscriptionCreation", func(t *testing.T) {
		ns := policyNamespace(t, e, "noautosub", map[string]string{"autoSubscriptionCreation": `{"allowAutoSubscriptionCreation":false}`})
		topic := "persistent://" + ns + "/t"
		require.NoError(t, e.admin.Topics().Create(topicName(t, topic), 0))
		_, err := oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "new"})
		refusedWith(t, err, "SubscriptionNotFound", "Subscription does not exist")
		_, err = shortClient(t, e.url).Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "new"})
		sdkRefused(t, err, "SubscriptionNotFound", "Subscription does not exist")
		require.NoError(t, e.admin.Subscriptions().Create(topicName(t, topic), "made", utils.Earliest))
		c, err := oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "made"})
		require.NoError(t, err, "a subscription created with the admin API")
		c.Close()
	})
}

// maxTopicsPerNamespace as a namespace policy: the third auto-created topic
// is refused (NotAllowedError), and so is its creation over the admin API
// (412).
func TestRefusalMaxTopicsPolicy(t *testing.T) {
	e := newAdminEnv(t)
	ns := newPolicyNamespace(t, e, "maxtopics")
	require.NoError(t, e.admin.Namespaces().SetMaxTopicsPerNamespace(*mustNamespace(t, ns), 2))
	oc := officialClient(t, e.url)
	for i := 1; i <= 2; i++ {
		p, err := oc.CreateProducer(producerOpts(fmt.Sprintf("persistent://%s/t%d", ns, i)))
		require.NoError(t, err)
		p.Close()
	}
	_, err := oc.CreateProducer(producerOpts("persistent://" + ns + "/t3"))
	refusedWith(t, err, "NotAllowedError", "Exceed maximum number of topics in namespace.")
	_, err = shortClient(t, e.url).CreateProducer(pulsar.ProducerOptions{Topic: "persistent://" + ns + "/t3"})
	sdkRefused(t, err, "NotAllowedError", "Exceed maximum number of topics in namespace.")
	wantStatus(t, e.admin.Topics().Create(topicName(t, "persistent://"+ns+"/t4"), 0), http.StatusPreconditionFailed, "a third topic over the admin API")
}

// maxUnackedMessagesPerConsumer as a namespace policy: a Shared consumer
// that acks nothing gets 10 of 50 messages; acking half lets more come.
func TestRefusalMaxUnackedPolicy(t *testing.T) {
	// Mostly waiting (timeouts that must pass, rates, quiet periods), on a
	// broker and clients of its own: it waits beside the other tests.
	t.Parallel()
	e := newAdminEnv(t)
	ns := policyNamespace(t, e, "maxunacked", map[string]string{"maxUnackedMessagesPerConsumer": "10"})
	topic := "persistent://" + ns + "/t"
	oc := officialClient(t, e.url)
	cons, err := oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s", Type: official.Shared})
	require.NoError(t, err)
	defer cons.Close()
	p, err := oc.CreateProducer(producerOpts(topic))
	require.NoError(t, err)
	defer p.Close()
	sendN(t, p, "m", 50)
	got := receiveN(t, cons, 10)
	expectNothing(t, cons, time.Second)
	for _, m := range got[:5] {
		require.NoError(t, cons.Ack(m))
	}
	more := receiveN(t, cons, 5)
	assert.NotEqual(t, got[9].ID().String(), more[0].ID().String())
	expectNothing(t, cons, time.Second)
}

// The same rows as broker configuration (brokerstub.Options, which
// -config standalone.conf sets from Pulsar's keys); stub only.
func TestRefusalBrokerConfig(t *testing.T) {
	cfg, err := brokerstub.ParseConfig(strings.NewReader(strings.Join([]string{
		"maxProducersPerTopic=1", "maxConsumersPerTopic=2", "maxConsumersPerSubscription=1",
		"maxSubscriptionsPerTopic=2", "maxUnackedMessagesPerConsumer=10", "allowAutoSubscriptionCreation=false",
		"maxNumPartitionsPerPartitionedTopic=4", "enableNonPersistentTopics=false", "maxTopicsPerNamespace=3",
	}, "\n")))
	require.NoError(t, err)
	require.Empty(t, cfg.Ignored)
	e := newAdminEnv(t, cfg.Options)
	oc := officialClient(t, e.url)

	topic := newTopic(t)
	require.NoError(t, e.admin.Topics().Create(topicName(t, topic), 0))
	require.NoError(t, e.admin.Subscriptions().Create(topicName(t, topic), "s", utils.Earliest))
	p, err := oc.CreateProducer(producerOpts(topic))
	require.NoError(t, err)
	defer p.Close()
	_, err = oc.CreateProducer(producerOpts(topic))
	refusedWith(t, err, "ProducerBusy", "reached max producers limit")

	_, err = oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "new"})
	refusedWith(t, err, "SubscriptionNotFound", "Subscription does not exist")
	cons, err := oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s", Type: official.Shared})
	require.NoError(t, err)
	defer cons.Close()
	_, err = oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s", Type: official.Shared})
	refusedWith(t, err, "ConsumerBusy", "Subscription reached max consumers limit")

	sendN(t, p, "m", 50)
	receiveN(t, cons, 10)
	expectNothing(t, cons, 500*time.Millisecond)

	roomy := policyNamespace(t, e, "roomy", map[string]string{"maxTopicsPerNamespace": "0"})
	wantStatus(t, e.admin.Topics().Create(topicName(t, "persistent://"+roomy+"/parts"), 8), http.StatusNotAcceptable, "8 partitions, 4 allowed")
	_, err = oc.CreateProducer(producerOpts("non-persistent://public/default/np"))
	refusedWith(t, err, "NotAllowedError", "non-persistent topic")
	require.NoError(t, e.admin.Topics().Create(topicName(t, newTopic(t)), 0)) // the namespace's second and third
	require.NoError(t, e.admin.Topics().Create(topicName(t, newTopic(t)), 0))
	_, err = oc.CreateProducer(producerOpts(newTopic(t)))
	refusedWith(t, err, "NotAllowedError", "Exceed maximum number of topics in namespace.")
}
