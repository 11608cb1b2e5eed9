package brokerstub

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// adminDo sends one request to the broker's web service and returns the
// status and body.
func adminDo(t *testing.T, b *Broker, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, b.WebServiceURL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

func TestAdminStatusCodes(t *testing.T) {
	b := RunT(t)
	steps := []struct {
		method, path, body string
		code               int
		contains           string
	}{
		{"GET", "/admin/v2/clusters", "", 200, `["standalone"]`},
		{"GET", "/admin/v2/tenants", "", 200, `["public","pulsar"]`},
		{"GET", "/admin/v2/namespaces/public", "", 200, `["public/default"]`},
		{"GET", "/admin/v2/namespaces/nope", "", 404, `"reason"`},
		{"PUT", "/admin/v2/tenants/acme", `{"allowedClusters":["standalone"]}`, 204, ""},
		{"PUT", "/admin/v2/tenants/acme", `{"allowedClusters":["standalone"]}`, 409, ""},
		{"PUT", "/admin/v2/tenants/bad", `{"allowedClusters":["nowhere"]}`, 412, ""},
		{"PUT", "/admin/v2/tenants/bad", `{not json`, 400, ""},
		{"PUT", "/admin/v2/namespaces/acme/ns1", "", 204, ""},
		{"PUT", "/admin/v2/namespaces/acme/ns1", "", 409, ""},
		{"PUT", "/admin/v2/namespaces/nobody/ns1", "", 404, ""},
		{"PUT", "/admin/v2/persistent/acme/ns1/t1/partitions", "3", 204, ""},
		{"PUT", "/admin/v2/persistent/acme/ns1/t1/partitions", "3", 409, ""},
		{"PUT", "/admin/v2/persistent/acme/ns1/t2/partitions", `{"partitions":2}`, 204, ""},
		{"PUT", "/admin/v2/persistent/acme/ns1/t3/partitions", `0`, 406, ""},
		{"GET", "/admin/v2/persistent/acme/ns1/t1/partitions", "", 200, `"partitions":3`},
		{"POST", "/admin/v2/persistent/acme/ns1/t1/partitions", "5", 204, ""},
		{"POST", "/admin/v2/persistent/acme/ns1/t1/partitions", "2", 422, ""},
		{"GET", "/admin/v2/persistent/acme/ns1/t1/partitions", "", 200, `"partitions":5`},
		{"GET", "/admin/v2/persistent/acme/ns1/partitioned", "", 200, `persistent://acme/ns1/t1`},
		{"DELETE", "/admin/v2/namespaces/acme/ns1", "", 409, ""},
		{"DELETE", "/admin/v2/tenants/acme", "", 409, ""},
		{"DELETE", "/admin/v2/persistent/acme/ns1/t1/partitions", "", 204, ""},
		{"GET", "/admin/v2/persistent/acme/ns1/t1/stats", "", 404, ""},
		{"PATCH", "/admin/v2/tenants", "", 405, ""},
		{"GET", "/admin/v2/nothing/here", "", 404, ""},
		{"PUT", "/admin/v2/persistent/public/default/np", "null", 204, ""},
		{"PUT", "/admin/v2/persistent/public/default/np", "", 409, ""},
		{"GET", "/admin/v2/persistent/public/default/np/stats", "", 200, `"msgInCounter":0`},
		{"GET", "/admin/v2/persistent/public/default/np/ledger/1/entry/0", "", 404, ""},
		{"GET", "/admin/v2/persistent/public/default/np/ledger/x/entry/0", "", 400, ""},
		{"GET", "/lookup/v2/topic/persistent/public/default/np", "", 200, `"brokerUrl":"pulsar://`},
		{"GET", "/admin/v2/brokers/health", "", 200, "ok"},
		{"GET", "/metrics", "", 200, "pulsar_in_messages_total"},
	}
	for _, s := range steps {
		code, body := adminDo(t, b, s.method, s.path, s.body)
		if code != s.code || !strings.Contains(body, s.contains) {
			t.Errorf("%s %s %s: got %d %s, want %d containing %q", s.method, s.path, s.body, code, body, s.code, s.contains)
		}
	}
}

// TestAdminPeekCreatesMissingSubscription: peeking a subscription nobody
// created answers the topic's first messages, and leaves a durable
// subscription at the earliest message, as Pulsar does since
// apache/pulsar#8182 (the official admin client's
// TestPeekMessagesWithProperties peeks so).
func TestAdminPeekCreatesMissingSubscription(t *testing.T) {
	b := RunT(t)
	c := dialKS(t, b)
	p := c.producer("persistent://public/default/peek", 1)
	p.Send("k", "first")
	p.Send("k", "second")
	const sub = "/admin/v2/persistent/public/default/peek/subscription/never-made"
	for n, want := range []string{"first", "second"} {
		code, body := adminDo(t, b, "GET", sub+"/position/"+string(rune('1'+n)), "")
		if code != 200 || body != want {
			t.Fatalf("peek %d: %d %q, want 200 %q", n+1, code, body, want)
		}
	}
	if code, body := adminDo(t, b, "GET", sub+"/position/3", ""); code != 404 {
		t.Fatalf("peek past the backlog: %d %s, want 404", code, body)
	}
	code, body := adminDo(t, b, "GET", "/admin/v2/persistent/public/default/peek/subscriptions", "")
	if code != 200 || body != `["never-made"]` {
		t.Fatalf("subscriptions after the peek: %d %s", code, body)
	}
	code, body = adminDo(t, b, "GET", "/admin/v2/persistent/public/default/peek/stats", "")
	if code != 200 || !strings.Contains(body, `"never-made":{`) || !strings.Contains(body, `"msgBacklog":2`) {
		t.Fatalf("stats after the peek: %d %s", code, body)
	}
}

// TestAdminPartitionCountBounded: a partition count above maxPartitions is
// refused with 406 at create and grow, so that what a request claims never
// sizes the broker's allocations (every operation on a partitioned topic
// lists its partitions; FuzzAdmin stalled on a topic of 2^31 partitions).
func TestAdminPartitionCountBounded(t *testing.T) {
	b := RunT(t)
	const p = "/admin/v2/persistent/public/default/wide/partitions"
	if code, body := adminDo(t, b, "PUT", p, "2147483647"); code != 406 || !strings.Contains(body, "less than or equal to 1000") {
		t.Fatalf("create with 2^31-1 partitions: %d %s, want 406", code, body)
	}
	if code, body := adminDo(t, b, "PUT", p, `{"partitions":1000}`); code != 204 {
		t.Fatalf("create with 1000 partitions: %d %s", code, body)
	}
	if code, body := adminDo(t, b, "POST", p, "1001"); code != 406 {
		t.Fatalf("grow to 1001 partitions: %d %s, want 406", code, body)
	}
	if code, body := adminDo(t, b, "GET", "/admin/v2/persistent/public/default/wide/partitioned-stats", ""); code != 200 ||
		!strings.Contains(body, `"partitions":1000`) {
		t.Fatalf("partitioned stats: %d %.200s", code, body)
	}
}

// TestAdminGrowPartitionsCreatesSubscriptions: growing a partitioned topic
// creates its durable subscriptions on the new partitions, as Pulsar does,
// so that what is published there before a consumer attaches is kept for
// it.
func TestAdminGrowPartitionsCreatesSubscriptions(t *testing.T) {
	b := RunT(t)
	const base = "/admin/v2/persistent/public/default/grown"
	steps := []struct {
		method, path, body string
		code               int
	}{
		{"PUT", base + "/partitions", "2", 204},
		{"PUT", base + "/subscription/s1", `{"entryId":-1,"ledgerId":-1}`, 204},
		{"POST", base + "/partitions", "4", 204},
	}
	for _, s := range steps {
		if code, body := adminDo(t, b, s.method, s.path, s.body); code != s.code {
			t.Fatalf("%s %s: %d %s, want %d", s.method, s.path, code, body, s.code)
		}
	}
	for _, p := range []string{"-partition-2", "-partition-3"} {
		code, body := adminDo(t, b, "GET", base+p+"/subscriptions", "")
		if code != 200 || !strings.Contains(body, `"s1"`) {
			t.Fatalf("subscriptions of new partition %s: %d %s, want s1", p, code, body)
		}
	}
}
