package brokerstub

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/pulsargo/sdk/brokerstub/internal/admin"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

var fuzzMethods = []string{http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete, http.MethodHead, "PATCH"}

// FuzzAdmin sends arbitrary paths and bodies to the admin API: no answer
// is a 500, no handler panics (ServeHTTP turns a panic into a 503
// "internal error", which fails here too), and every request is answered
// within 10 s. who picks a role and a route of adminRouteTable, whose
// topic and subscription are named from path: a second broker, with
// authentication and authorization on, must decide as the table says
// (checkFuzzAuthz). Plain go test runs the seeds below and testdata/fuzz.
func FuzzAdmin(f *testing.F) {
	seeds := []struct {
		m    uint8
		path string
		body string
	}{
		{0, "/admin/v2/clusters", ""},
		{1, "/admin/v2/tenants/t1", `{"allowedClusters":["standalone"]}`},
		{1, "/admin/v2/namespaces/public/ns", `{"message_ttl_in_seconds":5}`},
		{1, "/admin/v2/persistent/public/default/t/partitions", "3"},
		{1, "/admin/v2/persistent/public/default/t/partitions", `{"partitions":-1}`},
		{2, "/admin/v2/persistent/public/default/t/partitions", "99999999999999999999"},
		{0, "/admin/v2/persistent/public/default/t-partition-0/stats", ""},
		{0, "/admin/v2/persistent/public/default/t/partitioned-stats?perPartition=false", ""},
		{1, "/admin/v2/persistent/public/default/np", "null"},
		{1, "/admin/v2/persistent/public/default/np/subscription/s", `{"ledgerId":-1,"entryId":-1}`},
		{2, "/admin/v2/persistent/public/default/np/subscription/s/resetcursor", `{"ledgerId":9223372036854775807,"entryId":0,"isExcluded":true}`},
		{2, "/admin/v2/persistent/public/default/np/subscription/s/resetcursor/-5", ""},
		{2, "/admin/v2/persistent/public/default/np/subscription/s/skip/-3", ""},
		{2, "/admin/v2/persistent/public/default/np/subscription/s/expireMessages/9223372036854775807", ""},
		{0, "/admin/v2/persistent/public/default/np/subscription/s/position/0", ""},
		{0, "/admin/v2/persistent/public/default/np/ledger/-1/entry/-1", ""},
		{0, "/admin/v2/persistent/public/default/np/examinemessage?initialPosition=latest&messagePosition=-9", ""},
		{2, "/admin/v2/persistent/public/default/np/terminate", ""},
		{3, "/admin/v2/persistent/public/default/np?force=true", ""},
		{2, "/admin/v2/namespaces/public/default/backlogQuota?backlogQuotaType=message_age", `{"limit":"x"}`},
		{2, "/admin/v2/namespaces/public/default/permissions/r%2F1", `["produce","nope"]`},
		{0, "/lookup/v2/topic/persistent/public/default/%ZZ", ""},
		{0, "/lookup/v2/topic/non-persistent/a/b/c", ""},
		{3, "/admin/v2/tenants/public?force=true", ""},
		{0, "/metrics", ""},
		{5, "/admin/v2/brokers/health", "{"},
		// The schema resource.
		{2, "/admin/v2/schemas/public/default/s/schema", `{"type":"AVRO","schema":"{\"type\":\"record\",\"name\":\"U\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}","properties":{"k":"v"}}`},
		{2, "/admin/v2/schemas/public/default/s/schema", `{"type":"AVRO","schema":"{\"type\":\"record\",\"name\":\"U\",\"fields\":[{\"name\":\"a\",\"type\":\"long\"}]}"}`},
		{2, "/admin/v2/schemas/public/default/s/schema", `{"type":"KEY_VALUE","schema":"{\"key\":{},\"value\":{}}"}`},
		{2, "/admin/v2/schemas/public/default/s/schema", `{"type":"PROTOBUF_NATIVE","schema":"{\"fileDescriptorSet\":\"AAAA\"}"}`},
		{2, "/admin/v2/schemas/public/default/s/schema", `{"type":"INT8","schema":"x"}`},
		{2, "/admin/v2/schemas/public/default/s/schema", `{"type":null,"schema":7}`},
		{2, "/admin/v2/schemas/public/default/s/compatibility", `{"type":"JSON","schema":"{\"type\":\"object\"}"}`},
		{2, "/admin/v2/schemas/public/default/s/compatibility", `{"type":"AUTO_CONSUME","schema":""}`},
		{2, "/admin/v2/schemas/public/default/s/version", `{"type":"STRING","schema":""}`},
		{2, "/admin/v2/schemas/public/default/s-partition-3/version", `[]`},
		{0, "/admin/v2/schemas/public/default/s/schemas", ""},
		{0, "/admin/v2/schemas/public/default/s/schema/-1", ""},
		{0, "/admin/v2/schemas/public/default/s/schema/99999999999999999999", ""},
		{3, "/admin/v2/schemas/public/default/s/schema?force=true", ""},
		{3, "/admin/v2/schemas/nobody/none/s/schema", ""},
		// A partition count that must not size an allocation.
		{1, "/admin/v2/persistent/public/default/wide/partitions", "2147483647"},
		{2, "/admin/v2/persistent/public/default/t/partitions", `{"partitions":1001}`},
		{0, "/admin/v2/persistent/public/default/wide/partitioned-stats", ""},
		// A peek that creates its subscription; examine from the end.
		{0, "/admin/v2/persistent/public/default/np/subscription/made%2Fby%2Fpeek/position/1", ""},
		{0, "/admin/v2/persistent/public/default/np/examinemessage?initialPosition=latest&messagePosition=1", ""},
	}
	for i, s := range seeds {
		f.Add(s.m, s.path, []byte(s.body), uint16(i*37))
	}
	// Issue #31's V1 and V2: a consume role on a topic named like a
	// subscription, a produce role reading message bodies.
	f.Add(uint8(0), "subscription-events", []byte(nil), fuzzWho(admin.Del, admin.TopicPath, roleConsumer))
	f.Add(uint8(0), "subscription-events", []byte(nil), fuzzWho(admin.Post, admin.TopicPath+"/terminate", roleConsumer))
	f.Add(uint8(0), "t", []byte(nil), fuzzWho(admin.Post, admin.TopicPath+"/{policy}", roleConsumer))
	f.Add(uint8(0), "t", []byte(nil), fuzzWho(admin.Get, admin.TopicPath+"/examinemessage", roleProducer))
	f.Add(uint8(0), "locked", []byte(nil), fuzzWho(admin.Get, admin.SubPath+"/position/{n}", roleConsumer))
	b := RunT(f, Options{NoListener: true})
	h := b.AdminHandler()
	az := newAdminAuthzFixture(f)
	az.setUp(f, "auth", "t")
	router := &admin.Server{Routes: admin.Routes()}
	dirty := false
	f.Fuzz(func(t *testing.T, m uint8, path string, body []byte, who uint16) {
		dirty = checkFuzzAuthz(t, az, router, who, path, dirty)
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		req, err := http.NewRequest(fuzzMethods[int(m)%len(fuzzMethods)], "http://stub"+path, bytes.NewReader(body))
		if err != nil {
			return // not a URL a client could send
		}
		rec := httptest.NewRecorder()
		// A request that never returns fails with the input (a hang would
		// otherwise stall the fuzzer with nothing saved).
		done := make(chan struct{})
		go func() {
			defer close(done)
			h.ServeHTTP(rec, req)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			buf := make([]byte, 1<<20)
			t.Fatalf("%s %s %q: no answer after 10 s\n%s", req.Method, path, body, buf[:runtime.Stack(buf, true)])
		}
		if rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable || strings.Contains(rec.Body.String(), "internal error") {
			t.Fatalf("%s %s %q: HTTP %d %s", req.Method, path, body, rec.Code, rec.Body)
		}
		if rec.Code >= 400 && !strings.Contains(rec.Body.String(), `"reason"`) {
			t.Fatalf("%s %s: HTTP %d without a reason: %s", req.Method, path, rec.Code, rec.Body)
		}
	})
}

// fuzzWho is the who of FuzzAdmin that picks the route method pattern as
// role.
func fuzzWho(method, pattern, role string) uint16 {
	for i, row := range adminRouteTable {
		if row.method == method && row.pattern == pattern {
			return uint16(i*len(testAdminRoles) + slices.Index(testAdminRoles, role))
		}
	}
	panic("no route " + method + " " + pattern)
}

// fuzzName makes a topic or subscription name of the fuzzer's path: its
// letters, digits, '-' and '_', at most 40 of them.
func fuzzName(path, otherwise string) string {
	var sb strings.Builder
	for _, r := range path {
		if sb.Len() == 40 {
			break
		}
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_') {
			sb.WriteRune(r)
		}
	}
	if sb.Len() == 0 {
		return otherwise
	}
	return sb.String()
}

// checkFuzzAuthz sends the route and role who picks, on a topic and
// subscription named from path, and checks the decision against
// adminRouteTable's row for the route that serves the request. dirty says
// an earlier request may have changed the grants (setUp restores them
// first); it returns whether this one may have.
func checkFuzzAuthz(t *testing.T, az *adminAuthzFixture, router *admin.Server, who uint16, path string, dirty bool) bool {
	role := testAdminRoles[int(who)%len(testAdminRoles)]
	row := adminRouteTable[int(who)/len(testAdminRoles)%len(adminRouteTable)]
	p := concretePath(row.pattern, "auth", fuzzName(path, "t"), fuzzName(path, "s1"))
	i := router.RouteIndex(row.method, p)
	if i < 0 {
		t.Fatalf("%s %s: no route serves it", row.method, p)
	}
	// The route that serves it may be an earlier one (a topic named like
	// a literal segment); the table's row for that one decides.
	rt := &router.Routes[i]
	segs, _ := engine.SplitPath(p)
	caps, _ := rt.Match(segs)
	if caps["tenant"] != "" && caps["tenant"] != "private" || caps["ns"] != "" && caps["ns"] != "auth" {
		return dirty // names another namespace than the one set up
	}
	for _, r := range adminRouteTable {
		if r.method == rt.Method && r.pattern == rt.Pattern {
			row = r
		}
	}
	if dirty {
		az.setUp(t, "auth", "t")
	}
	az.checkAdminDecision(t, role, row.method, p, row.need, caps["sub"] == "locked")
	return row.method != admin.Get && row.need.allows(role, caps["sub"] == "locked")
}
