package brokerstub

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

var fuzzMethods = []string{http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete, http.MethodHead, "PATCH"}

// FuzzAdmin sends arbitrary paths and bodies to the admin API: no answer
// is a 500, no handler panics (ServeHTTP turns a panic into a 503
// "internal error", which fails here too), and every request is answered
// within 10 s. Plain go test runs the seeds below and testdata/fuzz.
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
	for _, s := range seeds {
		f.Add(s.m, s.path, []byte(s.body))
	}
	b := RunT(f, Options{NoListener: true})
	h := b.AdminHandler()
	f.Fuzz(func(t *testing.T, m uint8, path string, body []byte) {
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
