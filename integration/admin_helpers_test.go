package integration

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsaradmin"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin/config"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/rest"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"

	"github.com/pulsargo/sdk/brokerstub"
)

// adminEnv is a broker with its admin API: brokerstub, or a real Pulsar
// when PULSARGO_TEST_URL and PULSARGO_TEST_ADMIN_URL are set (then stub is
// nil, and tests that need its controls skip).
type adminEnv struct {
	url, web string
	stub     *brokerstub.Broker
	admin    pulsaradmin.Client
}

func newAdminEnv(t *testing.T, opts ...brokerstub.Options) *adminEnv {
	t.Helper()
	e := &adminEnv{url: os.Getenv("PULSARGO_TEST_URL"), web: os.Getenv("PULSARGO_TEST_ADMIN_URL")}
	if e.url == "" || e.web == "" {
		e.stub = startStub(t, opts...)
		e.url, e.web = e.stub.URL(), e.stub.WebServiceURL()
	} else if len(opts) > 0 {
		t.Skip("needs brokerstub options; PULSARGO_TEST_URL is set")
	}
	a, err := pulsaradmin.NewClient(&config.Config{WebServiceURL: e.web})
	if err != nil {
		t.Fatalf("admin client: %v", err)
	}
	e.admin = a
	return e
}

// needStub skips the test against a real Pulsar.
func (e *adminEnv) needStub(t *testing.T) {
	if e.stub == nil {
		t.Skip("needs brokerstub's controls")
	}
}

func topicName(t *testing.T, s string) utils.TopicName {
	t.Helper()
	tn, err := utils.GetTopicName(s)
	if err != nil {
		t.Fatal(err)
	}
	return *tn
}

// wantStatus checks that err is an admin API error with the HTTP status.
func wantStatus(t *testing.T, err error, code int, what string) {
	t.Helper()
	var re rest.Error
	if !errors.As(err, &re) {
		t.Fatalf("%s: err = %v, want HTTP %d", what, err, code)
	}
	if re.Code != code {
		t.Fatalf("%s: HTTP %d (%s), want %d", what, re.Code, re.Reason, code)
	}
	if re.Reason == "" {
		t.Errorf("%s: HTTP %d without a reason", what, code)
	}
}

// eventually retries f until it returns nil or 10 s pass.
func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func httpGet(t *testing.T, url string) (int, string, http.Header) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body), resp.Header
}

// producerOpts are the options of a plain producer: no batching, so each
// message is one entry.
func producerOpts(topic string) official.ProducerOptions {
	return official.ProducerOptions{Topic: topic, DisableBatching: true}
}

// stubOptions are brokerstub options with a data dir when dataDir is set.
func stubOptions(t *testing.T, dataDir bool) brokerstub.Options {
	var o brokerstub.Options
	if dataDir {
		o.DataDir = t.TempDir()
	}
	return o
}

// sendN sends n messages "<prefix>-<i>" and returns their ids.
func sendN(t *testing.T, p official.Producer, prefix string, n int) []official.MessageID {
	t.Helper()
	ids := make([]official.MessageID, 0, n)
	for i := range n {
		id, err := p.Send(ctxT(t), &official.ProducerMessage{Payload: fmt.Appendf(nil, "%s-%d", prefix, i)})
		if err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		ids = append(ids, id)
	}
	return ids
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

func mustNamespace(t *testing.T, ns string) *utils.NameSpaceName {
	t.Helper()
	n, err := utils.GetNamespaceName(ns)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func fmtSscan(s string, v *int64) (int, error) { return fmt.Sscan(s, v) }
