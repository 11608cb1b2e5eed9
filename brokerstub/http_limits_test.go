package brokerstub

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func httpStatus(t *testing.T, method, url string, body io.Reader, chunked bool) int {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if chunked {
		req.ContentLength = -1
		req.TransferEncoding = []string{"chunked"}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// httpMaxRequestSize: a body over the limit, or chunked, is 400 before
// the request is routed (Pulsar's MaxRequestSizeFilter).
func TestHTTPMaxRequestSize(t *testing.T) {
	cfg, err := ParseConfig(strings.NewReader("httpMaxRequestSize=16\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := RunT(t, cfg.Options)
	url := b.WebServiceURL() + "/admin/v2/tenants/big"
	body := `{"allowedClusters":["standalone"]}` // 35 bytes
	if got := httpStatus(t, http.MethodPut, url, strings.NewReader(body), false); got != http.StatusBadRequest {
		t.Errorf("PUT of %d bytes: %d, want 400", len(body), got)
	}
	if got := httpStatus(t, http.MethodPut, url, strings.NewReader("{}"), true); got != http.StatusBadRequest {
		t.Errorf("chunked PUT: %d, want 400", got)
	}
	if got := httpStatus(t, http.MethodGet, b.WebServiceURL()+"/admin/v2/clusters", nil, false); got != http.StatusOK {
		t.Errorf("GET: %d, want 200", got)
	}
}

// httpRequestsLimitEnabled: past the rate, 429 until the bucket refills on
// the broker's clock.
func TestHTTPRequestsPerSecond(t *testing.T) {
	clk := NewFakeClock(time.Unix(1000, 0))
	cfg, err := ParseConfig(strings.NewReader("httpRequestsLimitEnabled=true\nhttpRequestsMaxPerSecond=2\n"))
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.Options
	o.Clock = clk
	b := RunT(t, o)
	url := b.WebServiceURL() + "/admin/v2/clusters"
	// The bucket starts with one token.
	if got := httpStatus(t, http.MethodGet, url, nil, false); got != http.StatusOK {
		t.Fatalf("first: %d", got)
	}
	if got := httpStatus(t, http.MethodGet, url, nil, false); got != http.StatusTooManyRequests {
		t.Fatalf("second at once: %d, want 429", got)
	}
	clk.Advance(10 * time.Second) // refills to one second's worth: 2
	for i, want := range []int{200, 200, 429} {
		if got := httpStatus(t, http.MethodGet, url, nil, false); got != want {
			t.Fatalf("after refill, request %d: %d, want %d", i, got, want)
		}
	}
	clk.Advance(500 * time.Millisecond)
	if got := httpStatus(t, http.MethodGet, url, nil, false); got != http.StatusOK {
		t.Fatalf("half a second later: %d, want 200", got)
	}
}

// disableHttpDebugMethods: TRACE and TRACK are 405 on any path.
func TestHTTPDebugMethods(t *testing.T) {
	for _, disable := range []bool{false, true} {
		b := RunT(t, Options{HTTPLimits: HTTPLimits{DisableDebugMethods: disable}})
		want := http.StatusNotFound // no route
		if disable {
			want = http.StatusMethodNotAllowed
		}
		for _, m := range []string{"TRACE", "TRACK"} {
			if got := httpStatus(t, m, b.WebServiceURL()+"/no/such/path", nil, false); got != want {
				t.Errorf("disable=%v %s: %d, want %d", disable, m, got, want)
			}
		}
	}
}

// maxConcurrentHttpRequests: a request over the limit waits for a slot,
// and is 503 when none frees in time (Jetty's QoSFilter).
func TestHTTPMaxConcurrentRequests(t *testing.T) {
	b := RunT(t, Options{HTTPLimits: HTTPLimits{MaxConcurrentRequests: 1, ConcurrencyWait: 100 * time.Millisecond}})
	url := b.WebServiceURL() + "/admin/v2/clusters"
	unpause := b.api.PauseAdmin() // requests that got their slot wait at the gate
	first := make(chan int, 1)
	go func() { first <- httpStatus(t, http.MethodGet, url, nil, false) }()
	for len(b.api.Admin.Limits.Slots) == 0 {
		time.Sleep(time.Millisecond)
	}
	if got := httpStatus(t, http.MethodGet, url, nil, false); got != http.StatusServiceUnavailable {
		t.Errorf("second while the first holds the slot: %d, want 503", got)
	}
	unpause()
	if got := <-first; got != http.StatusOK {
		t.Errorf("first: %d", got)
	}
	if got := httpStatus(t, http.MethodGet, url, nil, false); got != http.StatusOK {
		t.Errorf("after: %d", got)
	}
}

// maxHttpServerConnections: past the limit a connection is not served
// until an open one closes.
func TestHTTPMaxConnections(t *testing.T) {
	b := RunT(t, Options{HTTPLimits: HTTPLimits{MaxConnections: 1}})
	addr := strings.TrimPrefix(b.WebServiceURL(), "http://")
	get := func(nc net.Conn) error {
		_ = nc.SetDeadline(time.Now().Add(300 * time.Millisecond))
		if _, err := fmt.Fprintf(nc, "GET /admin/v2/clusters HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			return err
		}
		resp, err := http.ReadResponse(bufio.NewReader(nc), nil)
		if err == nil {
			_ = resp.Body.Close()
		}
		return err
	}
	c1, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if err := get(c1); err != nil {
		t.Fatalf("first connection: %v", err)
	}
	c2, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if err := get(c2); err == nil {
		t.Fatal("second connection served while the first is open")
	}
	_ = c1.Close()
	c3, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	// c2 (its request timed out on our side) holds the slot now or c3 gets
	// it once c2 is closed.
	_ = c2.Close()
	_ = c3.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(c3, "GET /admin/v2/clusters HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c3), nil)
	if err != nil {
		t.Fatalf("a connection once the others closed: %v", err)
	}
	_ = resp.Body.Close()
}
