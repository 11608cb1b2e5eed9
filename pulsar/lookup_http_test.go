package pulsar

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
)

// webRecorder serves a broker's admin API and records the paths and
// Authorization headers of the requests it gets.
type webRecorder struct {
	mu    sync.Mutex
	paths []string
	auth  []string
}

func (w *webRecorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.paths = append(w.paths, r.URL.Path)
		w.auth = append(w.auth, r.Header.Get("Authorization"))
		w.mu.Unlock()
		h.ServeHTTP(rw, r)
	})
}

func (w *webRecorder) seen() (paths, auth []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.paths...), append([]string(nil), w.auth...)
}

// binaryLookups counts the LOOKUP and PARTITIONED_METADATA commands b gets.
func binaryLookups(b *brokerstub.Broker) *atomic.Int64 {
	var n atomic.Int64
	b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
		if ev.Type == brokerstub.CmdLookup || ev.Type == brokerstub.CmdPartitionedMetadata {
			n.Add(1)
		}
		return brokerstub.Action{}
	})
	return &n
}

func TestHTTPServiceURLLooksUpOverTheAdminAPI(t *testing.T) {
	b := brokerstub.RunT(t)
	rec := &webRecorder{}
	web := httptest.NewServer(rec.wrap(b.AdminHandler()))
	defer web.Close()
	require.NoError(t, b.CreatePartitionedTopic("http-parts", 3))
	binary := binaryLookups(b)

	c, err := NewClient(ClientOptions{URL: web.URL, Authentication: NewAuthenticationToken("tok"), OperationTimeout: 5 * time.Second})
	require.NoError(t, err)
	defer c.Close()

	parts, err := c.TopicPartitions("http-parts")
	require.NoError(t, err)
	assert.Equal(t, []string{
		"persistent://public/default/http-parts-partition-0",
		"persistent://public/default/http-parts-partition-1",
		"persistent://public/default/http-parts-partition-2",
	}, parts)

	cons, err := c.Subscribe(ConsumerOptions{Topic: "http-parts", SubscriptionName: "s"})
	require.NoError(t, err)
	defer cons.Close()
	p, err := c.CreateProducer(ProducerOptions{Topic: "http-parts", DisableBatching: true})
	require.NoError(t, err)
	defer p.Close()
	ctx := ctxFor(t, 10*time.Second)
	for i := range 6 {
		_, err := p.Send(ctx, &ProducerMessage{Payload: []byte{byte('a' + i)}})
		require.NoError(t, err)
	}
	var got []string
	for range 6 {
		m, err := cons.Receive(ctx)
		require.NoError(t, err)
		got = append(got, string(m.Payload()))
	}
	assert.ElementsMatch(t, []string{"a", "b", "c", "d", "e", "f"}, got)

	assert.Zero(t, binary.Load(), "an http:// client sends no LOOKUP or PARTITIONED_METADATA")
	paths, auth := rec.seen()
	assert.Contains(t, paths, "/admin/v2/persistent/public/default/http-parts/partitions")
	assert.Contains(t, paths, "/lookup/v2/topic/persistent/public/default/http-parts-partition-1")
	for _, a := range auth {
		assert.Equal(t, "Bearer tok", a)
	}
}

func TestHTTPServiceURLErrors(t *testing.T) {
	b := brokerstub.RunT(t, brokerstub.Options{DisableAutoTopicCreation: true})
	c, err := NewClient(ClientOptions{URL: b.WebServiceURL(), OperationTimeout: 3 * time.Second})
	require.NoError(t, err)
	defer c.Close()

	_, err = c.CreateProducer(ProducerOptions{Topic: "missing"})
	var se *ServerError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "TopicNotFound", se.Code)
	assert.False(t, IsRetriable(err))

	_, err = NewClient(ClientOptions{URL: "ftp://localhost:21"})
	assert.ErrorIs(t, err, ErrInvalidOptions)
	_, err = NewClient(ClientOptions{URL: "http://"})
	assert.ErrorIs(t, err, ErrInvalidOptions)
}

// A web service that answers with something other than Pulsar's JSON (or
// too much of it) fails the lookup with an error; nothing panics.
func TestHTTPServiceURLBadAnswers(t *testing.T) {
	answers := map[string]string{
		"/admin/v2/persistent/public/default/junk/partitions":     `{"partitions": "many"}`,
		"/admin/v2/persistent/public/default/negative/partitions": `{"partitions": -4}`,
		"/lookup/v2/topic/persistent/public/default/junk":         `{"brokerUrl": "ftp://nowhere"}`,
	}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a, ok := answers[r.URL.Path]; ok {
			_, _ = w.Write([]byte(a))
			return
		}
		if strings.HasSuffix(r.URL.Path, "/huge/partitions") {
			_, _ = w.Write([]byte(`{"partitions": 1, "pad": "`))
			for range 2 << 10 {
				_, _ = w.Write(make([]byte, 1<<10))
			}
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer web.Close()
	c, err := NewClient(ClientOptions{URL: web.URL, OperationTimeout: time.Second})
	require.NoError(t, err)
	defer c.Close()
	for _, topic := range []string{"junk", "negative", "huge"} {
		_, err := c.TopicPartitions(topic)
		assert.Error(t, err, topic)
	}
	_, err = c.TopicPartitions("unavailable")
	var se *ServerError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "ServiceNotReady", se.Code)
}

// With several hosts, a host that refuses connections is skipped, as the
// official client's TestRetryWithMultipleHttpHosts expects.
func TestHTTPServiceURLSeveralHosts(t *testing.T) {
	b := brokerstub.RunT(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := l.Addr().String()
	require.NoError(t, l.Close())
	good := strings.TrimPrefix(b.WebServiceURL(), "http://")
	c, err := NewClient(ClientOptions{URL: "http://" + dead + "," + good, OperationTimeout: 5 * time.Second})
	require.NoError(t, err)
	defer c.Close()
	for range 3 {
		require.NoError(t, roundTrip(t, c, "several-hosts"))
	}
}

func TestHTTPSServiceURL(t *testing.T) {
	cert, caFile := selfSigned(t, "127.0.0.1")
	b := brokerstub.RunT(t, brokerstub.Options{TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}})
	web := httptest.NewUnstartedServer(b.AdminHandler())
	web.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	web.StartTLS()
	defer web.Close()
	require.True(t, strings.HasPrefix(web.URL, "https://"))
	binary := binaryLookups(b)

	c, err := NewClient(ClientOptions{URL: web.URL, TLSTrustCertsFilePath: caFile, TLSValidateHostname: true})
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, roundTrip(t, c, "https-ok"))
	assert.Zero(t, binary.Load())

	untrusted, err := NewClient(ClientOptions{URL: web.URL, OperationTimeout: time.Second})
	require.NoError(t, err)
	defer untrusted.Close()
	assert.Error(t, roundTrip(t, untrusted, "https-untrusted"), "the web service's certificate is not trusted")
}

// Over an http:// URL a pattern consumer lists the namespace over the admin
// API (GET /admin/v2/namespaces/{ns}/topics) and polls: no binary
// connection carries a topic-list watcher.
func TestHTTPServiceURLPatternConsumerPolls(t *testing.T) {
	b := brokerstub.RunT(t)
	rec := &webRecorder{}
	web := httptest.NewServer(rec.wrap(b.AdminHandler()))
	defer web.Close()
	var watches atomic.Int64
	b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
		if ev.Type == brokerstub.CmdWatchTopicList || ev.Type == brokerstub.CmdGetTopicsOfNamespace {
			watches.Add(1)
		}
		return brokerstub.Action{}
	})
	c, err := NewClient(ClientOptions{URL: web.URL, OperationTimeout: 5 * time.Second})
	require.NoError(t, err)
	defer c.Close()
	cons, err := c.Subscribe(ConsumerOptions{TopicsPattern: "public/default/http-pat-.*", SubscriptionName: "s",
		SubscriptionInitialPosition: SubscriptionPositionEarliest, AutoDiscoveryPeriod: 50 * time.Millisecond})
	require.NoError(t, err)
	defer cons.Close()
	sendTo(t, c, "http-pat-1", "one")
	m, err := cons.Receive(ctxFor(t, 10*time.Second))
	require.NoError(t, err)
	assert.Equal(t, "one", string(m.Payload()))
	assert.Zero(t, watches.Load())
	paths, _ := rec.seen()
	assert.Contains(t, paths, "/admin/v2/namespaces/public/default/topics")
}
