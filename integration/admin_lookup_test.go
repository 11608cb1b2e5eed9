package integration

import (
	"encoding/json"
	"strings"
	"testing"

	official "github.com/apache/pulsar-client-go/pulsar"
)

// TestAdminHTTPLookup runs a client whose service URL is the web service
// (http://): partitioned metadata and lookups go over HTTP, messages over
// the binary protocol the lookup names.
func TestAdminHTTPLookup(t *testing.T) {
	e := newAdminEnv(t)
	topic := newTopic(t)
	tn := topicName(t, topic)
	if err := e.admin.Topics().Create(tn, 2); err != nil {
		t.Fatal(err)
	}
	ld, err := e.admin.Topics().Lookup(topicName(t, topic+"-partition-0"))
	if err != nil {
		t.Fatal(err)
	}
	if ld.BrokerURL != e.url || ld.HTTPURL != e.web {
		t.Errorf("lookup = %+v, want brokerUrl %s and httpUrl %s", ld, e.url, e.web)
	}
	c := officialClient(t, e.web)
	parts, err := c.TopicPartitions(topic)
	if err != nil || len(parts) != 2 {
		t.Fatalf("partitions over HTTP lookup = %v, %v", parts, err)
	}
	cons, err := c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.CreateProducer(producerOpts(topic))
	if err != nil {
		t.Fatal(err)
	}
	sendN(t, p, "m", 4)
	receiveN(t, cons, 4)

	// /metrics reports the topic's real numbers.
	code, body, _ := httpGet(t, e.web+"/metrics")
	if code != 200 {
		t.Fatalf("/metrics: HTTP %d", code)
	}
	var in int64
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "pulsar_in_messages_total{") && strings.Contains(line, topic+"-partition-") {
			var n int64
			if _, err := fmtSscan(line[strings.LastIndex(line, " ")+1:], &n); err == nil {
				in += n
			}
		}
	}
	if in != 4 {
		t.Errorf("pulsar_in_messages_total over the partitions = %d, want 4:\n%s", in, body)
	}
	if !strings.Contains(body, "pulsar_consumers_count{") {
		t.Errorf("/metrics lacks pulsar_consumers_count")
	}

	// Errors are JSON with a reason, with Pulsar's status codes.
	code, body, _ = httpGet(t, e.web+"/admin/v2/persistent/public/default/"+strings.TrimPrefix(topic, "persistent://public/default/")+"/stats")
	var reason struct{ Reason string }
	if code != 404 || json.Unmarshal([]byte(body), &reason) != nil || reason.Reason == "" {
		t.Errorf("stats of a partitioned topic's parent: %d %s, want 404 with a reason", code, body)
	}
}
