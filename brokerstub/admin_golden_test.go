package brokerstub

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pulsargo/sdk/internal/proto"
)

var updateAdminGolden = flag.Bool("update-admin-golden", false, "rewrite testdata/admin_responses.json from this run")

// adminGoldenFile holds the admin API's answers to adminGoldenScenario:
// status and decoded JSON body of each request, in order.
const adminGoldenFile = "testdata/admin_responses.json"

// hostPort is a bound address in an answer (a client's, a service URL's):
// its port differs from run to run.
var hostPort = regexp.MustCompile(`(127\.0\.0\.1|localhost|\[::1\]):\d+`)

// normalizeAnswer replaces what differs from run to run (ports) so that
// answers compare as values.
func normalizeAnswer(v any) any {
	switch x := v.(type) {
	case string:
		return hostPort.ReplaceAllString(x, "$1:PORT")
	case map[string]any:
		for k, sv := range x {
			x[k] = normalizeAnswer(sv)
		}
	case []any:
		for i, sv := range x {
			x[i] = normalizeAnswer(sv)
		}
	}
	return v
}

// adminAnswer is one request's status and decoded body (nil when empty).
type adminAnswer struct {
	Status int `json:"status"`
	Body   any `json:"body"`
}

// TestAdminResponsesGolden drives the admin API over HTTP on a broker with
// a producer, consumers and subscriptions on persistent, partitioned and
// non-persistent topics, and compares each answer's decoded JSON (every key
// and value) with testdata/admin_responses.json, so that a change of how
// the answers are built (map or typed struct) loses or renames no field.
// Rewrite the file with -update-admin-golden when an answer changes on
// purpose, and say why in the commit.
func TestAdminResponsesGolden(t *testing.T) {
	clk := NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	b := RunT(t, Options{Clock: clk})
	const (
		ns   = "/admin/v2/namespaces/public/default"
		pers = "/admin/v2/persistent/public/default/"
		np   = "/admin/v2/non-persistent/public/default/"
		sch  = "/admin/v2/schemas/public/default/gold/"
	)
	var got []adminAnswer
	var keys []string
	do := func(method, path, body string) {
		t.Helper()
		code, out := adminDo(t, b, method, path, body)
		a := adminAnswer{Status: code}
		if strings.TrimSpace(out) != "" {
			if err := json.Unmarshal([]byte(out), &a.Body); err != nil {
				a.Body = "not JSON: " + out
			}
		}
		a.Body = normalizeAnswer(a.Body)
		got = append(got, a)
		keys = append(keys, method+" "+path)
	}

	// A persistent topic: three messages, a Shared consumer that received
	// them and acknowledged the second (a hole), a second subscription.
	c := dialRaw(t, b)
	c.connect()
	const topic = "persistent://public/default/gold"
	publish(t, c, topic, 3)
	if e := c.sub(topic, "s", proto.CommandSubscribe_Shared, 1, true); e != nil {
		t.Fatal(e)
	}
	c.flowRaw(1, 10)
	ids := c.received(3)
	c.ackRaw(1, ids[1])
	do("PUT", pers+"gold/subscription/other", `{"ledgerId":-1,"entryId":-1}`)
	do("GET", pers+"gold/stats", "")
	do("GET", pers+"gold/stats?excludePublishers=true&excludeConsumers=true", "")
	do("GET", pers+"gold/internalStats", "")
	do("GET", pers+"gold/subscriptions", "")
	do("GET", pers+"gold/lastMessageId", "")
	do("GET", pers+"gold/messageid/0", "")
	do("GET", pers+"gold/compaction", "")
	do("POST", pers+"gold/subscription/other/analyzeBacklog", "")
	do("GET", pers+"gold/partitions", "")

	// A partitioned topic: a producer on partition 0, a consumer on 1.
	do("PUT", pers+"goldp/partitions", "2")
	c2 := dialRaw(t, b)
	c2.connect()
	publish(t, c2, topic+"p-partition-0", 2)
	if e := c2.sub(topic+"p-partition-1", "s", proto.CommandSubscribe_Failover, 2, true); e != nil {
		t.Fatal(e)
	}
	// The same subscription on partition 0 too: the totals add it up.
	if e := c2.sub(topic+"p-partition-0", "s", proto.CommandSubscribe_Failover, 3, true); e != nil {
		t.Fatal(e)
	}
	do("GET", pers+"goldp/partitions", "")
	do("GET", pers+"goldp/partitioned-stats", "")
	do("GET", pers+"goldp/partitioned-stats?perPartition=false", "")

	// Non-persistent topics: a Key_Shared consumer and a producer.
	c3 := dialRaw(t, b)
	c3.connect()
	const npTopic = "non-persistent://public/default/goldnp"
	if e := c3.sub(npTopic, "ks", proto.CommandSubscribe_Key_Shared, 3, true); e != nil {
		t.Fatal(e)
	}
	c3.flowRaw(3, 10)
	waitPermits(t, b, np+"goldnp/stats", 1)
	c5 := dialRaw(t, b)
	c5.connect()
	publish(t, c5, npTopic, 2)
	c3.received(2)
	do("GET", np+"goldnp/stats", "")
	do("GET", np+"goldnp/internalStats", "")
	do("PUT", np+"goldnpp/partitions", "2")
	c4 := dialRaw(t, b)
	c4.connect()
	do("GET", np+"goldnpp/partitioned-stats", "") // no partition loaded
	// A subscription on both partitions, messages on both.
	for i, part := range []string{"-partition-0", "-partition-1"} {
		if e := c4.sub(npTopic+"p"+part, "both", proto.CommandSubscribe_Shared, uint64(10+i), true); e != nil {
			t.Fatal(e)
		}
		c4.flowRaw(uint64(10+i), 10)
		waitPermits(t, b, np+"goldnpp"+part+"/stats", 1)
	}
	c6 := dialRaw(t, b)
	c6.connect()
	publish(t, c6, npTopic+"p-partition-0", 1)
	c7 := dialRaw(t, b)
	c7.connect()
	publish(t, c7, npTopic+"p-partition-1", 2)
	c4.received(3)
	do("GET", np+"goldnpp/partitioned-stats", "")
	do("GET", np+"goldnpp/partitioned-stats?perPartition=false", "")

	// Namespaces, tenants, clusters, brokers.
	do("POST", ns+"/backlogQuota", `{"limitSize":1024,"limitTime":-1,"policy":"producer_exception"}`)
	do("POST", ns+"/messageTTL", "60")
	do("GET", ns, "")
	do("GET", ns+"/backlogQuotaMap", "")
	do("GET", ns+"/bundles", "")
	do("GET", ns+"/messageTTL", "")
	do("GET", ns+"/retention", "")
	do("GET", ns+"/permissions", "")
	do("GET", "/admin/v2/tenants/public", "")
	do("GET", "/admin/v2/clusters", "")
	do("GET", "/admin/v2/clusters/standalone", "")
	do("GET", "/admin/v2/brokers/standalone", "")
	do("GET", "/admin/v2/brokers/leaderBroker", "")
	do("GET", "/admin/v2/brokers/health", "")
	do("GET", "/admin/v2/brokers/internal-configuration", "")
	do("PUT", "/admin/v2/tenants/acme", `{"adminRoles":["ops"],"allowedClusters":["standalone"]}`)
	do("GET", "/admin/v2/tenants/acme", "")
	do("PUT", "/admin/v2/namespaces/acme/ns", `{"bundles":{"numBundles":2},"message_ttl_in_seconds":30,"encryption_required":true}`)
	do("POST", "/admin/v2/namespaces/acme/ns/retention", `{"retentionTimeInMinutes":10,"retentionSizeInMB":5}`)
	do("POST", "/admin/v2/namespaces/acme/ns/permissions/reader", `["consume"]`)
	do("GET", "/admin/v2/namespaces/acme/ns", "")
	do("GET", "/admin/v2/namespaces/acme/ns/bundles", "")
	do("GET", "/admin/v2/namespaces/acme/ns/backlogQuotaMap", "")
	do("GET", "/lookup/v2/topic/persistent/public/default/gold", "")

	// Schemas.
	do("POST", sch+"schema", `{"type":"JSON","schema":"{\"type\":\"record\",\"name\":\"U\",\"fields\":[]}","properties":{"k":"v"}}`)
	do("GET", sch+"schema", "")
	do("GET", sch+"schema/0", "")
	do("GET", sch+"schemas", "")
	do("POST", sch+"compatibility", `{"type":"JSON","schema":"{\"type\":\"record\",\"name\":\"U\",\"fields\":[]}","properties":{}}`)
	do("POST", sch+"version", `{"type":"JSON","schema":"{\"type\":\"record\",\"name\":\"U\",\"fields\":[]}","properties":{"k":"v"}}`)
	do("POST", sch+"version", `{"type":"STRING","schema":"","properties":{}}`)
	do("DELETE", sch+"schema", "")

	// Termination answers the last message id.
	do("POST", pers+"gold/terminate", "")

	if len(keys) != len(got) {
		t.Fatal("one key per answer")
	}
	answers := map[string]adminAnswer{}
	for i, k := range keys {
		k = fmt.Sprintf("%02d %s", i, k)
		answers[k] = got[i]
	}
	if *updateAdminGolden {
		out, err := json.MarshalIndent(answers, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(adminGoldenFile, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(adminGoldenFile)
	if err != nil {
		t.Fatalf("%v (write it with -update-admin-golden)", err)
	}
	var want map[string]adminAnswer
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	// Round-trip what we got through JSON too, so both sides hold the
	// same Go types (float64, map[string]any, []any).
	gotRaw, _ := json.Marshal(answers)
	var gotRT map[string]adminAnswer
	if err := json.Unmarshal(gotRaw, &gotRT); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(want))
	for k := range want {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		g, ok := gotRT[k]
		if !ok {
			t.Errorf("%s: no answer", k)
			continue
		}
		for _, d := range diffJSON("", want[k].Body, g.Body) {
			t.Errorf("%s: %s", k, d)
		}
		if g.Status != want[k].Status {
			t.Errorf("%s: status %d, want %d", k, g.Status, want[k].Status)
		}
	}
	if len(gotRT) != len(want) {
		t.Errorf("%d answers, golden file has %d", len(gotRT), len(want))
	}
}

// waitPermits waits until n consumers of the topic whose stats path is
// given have permits: a non-persistent topic drops what it cannot deliver
// at once, so the scenario publishes only after its FLOWs arrived.
func waitPermits(t *testing.T, b *Broker, statsPath string, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, body := adminDo(t, b, "GET", statsPath, "")
		if strings.Count(body, `"availablePermits":10`) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no %d consumers with 10 permits: %s", statsPath, n, body)
		}
		time.Sleep(time.Millisecond)
	}
}

// diffJSON lists where two decoded JSON values differ: a key missing or
// added, a value changed.
func diffJSON(path string, want, got any) []string {
	wm, wok := want.(map[string]any)
	gm, gok := got.(map[string]any)
	if wok && gok {
		var out []string
		for k, wv := range wm {
			gv, ok := gm[k]
			if !ok {
				out = append(out, fmt.Sprintf("%s.%s: missing (was %v)", path, k, wv))
				continue
			}
			out = append(out, diffJSON(path+"."+k, wv, gv)...)
		}
		for k, gv := range gm {
			if _, ok := wm[k]; !ok {
				out = append(out, fmt.Sprintf("%s.%s: added (%v)", path, k, gv))
			}
		}
		sort.Strings(out)
		return out
	}
	wl, wok := want.([]any)
	gl, gok := got.([]any)
	if wok && gok && len(wl) == len(gl) {
		var out []string
		for i := range wl {
			out = append(out, diffJSON(fmt.Sprintf("%s[%d]", path, i), wl[i], gl[i])...)
		}
		return out
	}
	if !reflect.DeepEqual(want, got) {
		return []string{fmt.Sprintf("%s: %v, want %v", path, got, want)}
	}
	return nil
}
