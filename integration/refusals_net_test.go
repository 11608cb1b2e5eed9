package integration

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
)

// What Pulsar refuses, brokerstub refuses (issue 32): listener names in
// lookups and the HTTP limits. The unknown-listener row runs against a
// real Pulsar too (PULSARGO_TEST_URL); the others need the stub's options.

func listenerClient(t *testing.T, url, listener string) official.Client {
	t.Helper()
	c, err := official.NewClient(official.ClientOptions{URL: url, ListenerName: listener,
		OperationTimeout: 3 * time.Second, ConnectionTimeout: 3 * time.Second, Logger: quietLogger()})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// A lookup for a listener the broker does not advertise is ServiceNotReady
// "the broker do not have <name> listener"; the official client's
// ClientOptions.ListenerName sends it.
func TestRefusalUnknownListener(t *testing.T) {
	e := newAdminEnv(t)
	c := listenerClient(t, e.url, "nosuchlistener")
	_, err := c.CreateProducer(producerOpts(newTopic(t)))
	refusedWith(t, err, "ServiceNotReady", "") // the official client reports the code only
}

// The official client with ListenerName is sent to that listener's URL.
func TestListenerNameOfficialClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	cfg, err := brokerstub.ParseConfig(strings.NewReader(strings.Join([]string{
		"bindAddress=127.0.0.1", "brokerServicePort=" + strings.Split(addr, ":")[1], "webServicePort=0",
		"advertisedListeners=internal:pulsar://internal.invalid:6650,external:pulsar://" + addr,
		"internalListenerName=internal",
	}, "\n")))
	require.NoError(t, err)
	e := newAdminEnv(t, cfg.Options)
	topic := newTopic(t)
	c := listenerClient(t, e.url, "external")
	p, err := c.CreateProducer(producerOpts(topic))
	require.NoError(t, err, "lookup for listener external should name %s", addr)
	defer p.Close()
	sendN(t, p, "m", 1)
	// Without a listener name the internal listener's (unreachable) URL is
	// what the lookup names.
	_, err = listenerClient(t, e.url, "").CreateProducer(producerOpts(topic))
	require.Error(t, err)
}

// httpMaxRequestSize and disableHttpDebugMethods from the config: 400 for
// a larger body, 405 for TRACE; stub only.
func TestRefusalHTTPLimitsConfig(t *testing.T) {
	cfg, err := brokerstub.ParseConfig(strings.NewReader("httpMaxRequestSize=64\ndisableHttpDebugMethods=true\n"))
	require.NoError(t, err)
	e := newAdminEnv(t, cfg.Options)
	err = e.admin.Tenants().Create(utils.TenantData{Name: "big", AllowedClusters: []string{"standalone"}, AdminRoles: []string{strings.Repeat("r", 100)}})
	wantStatus(t, err, http.StatusBadRequest, "tenant with a body over httpMaxRequestSize")
	req, err := http.NewRequest("TRACE", e.web+"/admin/v2/clusters", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}
