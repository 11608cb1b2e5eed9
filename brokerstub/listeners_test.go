package brokerstub

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/admin"

	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

func lookupListener(c *rawClient, topic, listener string) *proto.CommandLookupTopicResponse {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_LOOKUP.Enum(), LookupTopic: &proto.CommandLookupTopic{
		Topic: gproto.String(topic), RequestId: gproto.Uint64(7), AdvertisedListenerName: gproto.String(listener)}})
	return c.expect(proto.BaseCommand_LOOKUP_RESPONSE).GetLookupTopicResponse()
}

func TestAdvertisedListenersConfig(t *testing.T) {
	cfg, err := ParseConfig(strings.NewReader("advertisedListeners=internal:pulsar://10.0.0.5:6650, external:pulsar://ext.example:16650," +
		"external:pulsar+ssl://ext.example:16651,external:http://ext.example:18080\ninternalListenerName=internal\n" +
		"bindAddresses=external:pulsar://127.0.0.1:16650\n"))
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.Options
	want := []Listener{{Name: "internal", BrokerServiceURL: "pulsar://10.0.0.5:6650"},
		{Name: "external", BrokerServiceURL: "pulsar://ext.example:16650", BrokerServiceURLTLS: "pulsar+ssl://ext.example:16651", HTTPURL: "http://ext.example:18080"}}
	if len(o.AdvertisedListeners) != 2 || o.AdvertisedListeners[0] != want[0] || o.AdvertisedListeners[1] != want[1] ||
		o.InternalListenerName != "internal" || len(o.BindAddresses) != 1 || o.BindAddresses[0] != (BindAddress{Listener: "external", Addr: "127.0.0.1:16650"}) {
		t.Fatalf("%+v %q %+v", o.AdvertisedListeners, o.InternalListenerName, o.BindAddresses)
	}
	for _, tc := range []struct{ conf, want string }{
		{"advertisedListeners=pulsar://h:1", "the value //h:1"}, // as Pulsar: listener "pulsar"
		{"advertisedListeners=a:pulsar://h:1,a:pulsar://h:2", "redundant"},
		{"advertisedListeners=a:pulsar://h:1,b:pulsar://h:1", "to different listener"},
		{"advertisedListeners=a:pulsar://h:1\ninternalListenerName=b", "internal listener `b`"},
		{"advertisedListeners=a:ftp://h:1", "want a pulsar"},
		{"advertisedListeners=a:pulsar://h", "host:port"},
		{"advertisedListeners=a b:pulsar://h:1", "listener name"},
		{"bindAddresses=a:http://127.0.0.1:0", "webServicePort"},
		{"bindAddresses=a:pulsar+ssl://127.0.0.1:0", "needs TLS"},
		{"bindAddresses=127.0.0.1:6650", "the value 6650"},
	} {
		_, err := ParseConfig(strings.NewReader(tc.conf + "\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error with %q", tc.conf, err, tc.want)
		}
	}
	if _, err := Start(Options{InternalListenerName: "x"}); !errors.Is(err, ErrListenerConfig) {
		t.Errorf("Start with an internal listener not advertised: %v", err)
	}
}

// A lookup is answered for the listener it names, else the listener of
// the port the connection came in on (bindAddresses), else the internal
// one; an unknown name is ServiceNotReady with Pulsar's text.
func TestAdvertisedListenersLookup(t *testing.T) {
	b := RunT(t, Options{
		AdvertisedListeners: []Listener{
			{Name: "internal", BrokerServiceURL: "pulsar://internal.example:6650"},
			{Name: "external", BrokerServiceURL: "pulsar://ext.example:16650", BrokerServiceURLTLS: "pulsar+ssl://ext.example:16651", HTTPURL: "http://ext.example:18080"},
		},
		BindAddresses: []BindAddress{{Listener: "external", Addr: "127.0.0.1:0"}},
	})
	const topic = "persistent://public/default/listeners"
	main := dialRaw(t, b)
	main.connect()
	for _, tc := range []struct{ listener, plain, secure, err string }{
		{"", "pulsar://internal.example:6650", "", ""},
		{"external", "pulsar://ext.example:16650", "pulsar+ssl://ext.example:16651", ""},
		{"internal", "pulsar://internal.example:6650", "", ""},
		{"nope", "", "", unknownListener("nope")},
	} {
		r := lookupListener(main, topic, tc.listener)
		if tc.err != "" {
			if r.GetError() != proto.ServerError_ServiceNotReady || r.GetMessage() != tc.err {
				t.Errorf("%q: %v, want ServiceNotReady %q", tc.listener, r, tc.err)
			}
			continue
		}
		if r.GetResponse() != proto.CommandLookupTopicResponse_Connect || r.GetBrokerServiceUrl() != tc.plain || r.GetBrokerServiceUrlTls() != tc.secure {
			t.Errorf("%q: %v, want %s %s", tc.listener, r, tc.plain, tc.secure)
		}
	}

	bound := b.BindAddressURL(0)
	nc, err := net.Dial("tcp", strings.TrimPrefix(bound, "pulsar://"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ext := dialRawOn(t, nc)
	ext.connect()
	if r := lookupListener(ext, topic, ""); r.GetBrokerServiceUrl() != "pulsar://ext.example:16650" {
		t.Errorf("lookup on the external bind address: %v", r)
	}
	if r := lookupListener(ext, topic, "internal"); r.GetBrokerServiceUrl() != "pulsar://internal.example:6650" {
		t.Errorf("lookup naming internal on the external port: %v", r)
	}
	if err := b.Restart(); err != nil {
		t.Fatal(err)
	}
	if b.BindAddressURL(0) != bound {
		t.Errorf("bind address after restart %s, want %s", b.BindAddressURL(0), bound)
	}

	// HTTP lookup: the listenerName parameter or the X-Pulsar-ListenerName header.
	get := func(query string, header string) (int, map[string]string) {
		req, _ := http.NewRequest(http.MethodGet, b.WebServiceURL()+"/lookup/v2/topic/persistent/public/default/listeners"+query, nil)
		if header != "" {
			req.Header.Set(admin.ListenerHeader, header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var d map[string]string
		_ = json.Unmarshal(body, &d)
		return resp.StatusCode, d
	}
	if code, d := get("?listenerName=external", ""); code != 200 || d["brokerUrl"] != "pulsar://ext.example:16650" || d["httpUrl"] != "http://ext.example:18080" {
		t.Errorf("HTTP lookup for external: %d %v", code, d)
	}
	if code, d := get("", "external"); code != 200 || d["brokerUrlTls"] != "pulsar+ssl://ext.example:16651" {
		t.Errorf("HTTP lookup with the header: %d %v", code, d)
	}
	if code, d := get("", ""); code != 200 || d["brokerUrl"] != "pulsar://internal.example:6650" || d["httpUrl"] != b.WebServiceURL() {
		t.Errorf("HTTP lookup for no listener: %d %v", code, d)
	}
	if code, _ := get("?listenerName=nope", ""); code != http.StatusServiceUnavailable {
		t.Errorf("HTTP lookup for an unknown listener: %d", code)
	}
}
