package brokerstub

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

var fuzzMethods = []string{http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete, http.MethodHead, "PATCH"}

// FuzzAdmin sends arbitrary paths and bodies to the admin API: no answer
// is a 500, and no handler panics (ServeHTTP turns a panic into a 503
// "internal error", which fails here too).
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
		start := time.Now()
		h.ServeHTTP(rec, req)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("%s %s took %v", req.Method, path, d)
		}
		if rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable || strings.Contains(rec.Body.String(), "internal error") {
			t.Fatalf("%s %s %q: HTTP %d %s", req.Method, path, body, rec.Code, rec.Body)
		}
		if rec.Code >= 400 && !strings.Contains(rec.Body.String(), `"reason"`) {
			t.Fatalf("%s %s: HTTP %d without a reason: %s", req.Method, path, rec.Code, rec.Body)
		}
	})
}
