package integration

import (
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"testing"

	official "github.com/apache/pulsar-client-go/pulsar"
	"golang.org/x/net/websocket"

	"github.com/pulsargo/sdk/brokerstub"
)

// wsDial opens a WebSocket session of Pulsar's WebSocket API.
func wsDial(t *testing.T, web, path string) *websocket.Conn {
	t.Helper()
	u := "ws" + strings.TrimPrefix(web, "http") + path
	c, err := websocket.Dial(u, "", web)
	if err != nil {
		t.Fatalf("dial %s: %v", u, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// The official client and Pulsar's WebSocket API on one topic, both ways:
// messages produced over WebSocket reach an official consumer, and the
// official producer's messages reach a WebSocket consumer that acks them.
// Against a real Pulsar (PULSARGO_TEST_URL, PULSARGO_TEST_ADMIN_URL) the
// broker needs webSocketServiceEnabled=true.
func TestWebSocketWithOfficialClient(t *testing.T) {
	var e *adminEnv
	if os.Getenv("PULSARGO_TEST_URL") != "" && os.Getenv("PULSARGO_TEST_ADMIN_URL") != "" {
		e = newAdminEnv(t)
	} else {
		e = newAdminEnv(t, brokerstub.Options{WebSocket: brokerstub.WebSocketOptions{Enabled: true}})
	}
	topic := newTopic(t)
	rest := strings.TrimPrefix(topic, "persistent://")
	client := officialClient(t, e.url)
	cons, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "official"})
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()

	prod := wsDial(t, e.web, "/ws/v2/producer/persistent/"+rest)
	for i := range 3 {
		msg := map[string]any{"payload": base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "ws-%d", i)),
			"key": "k", "properties": map[string]string{"i": fmt.Sprint(i)}, "context": fmt.Sprint(i)}
		if err := websocket.JSON.Send(prod, msg); err != nil {
			t.Fatal(err)
		}
		var ack struct{ Result, MessageID, Context string }
		if err := websocket.JSON.Receive(prod, &ack); err != nil || ack.Result != "ok" || ack.Context != fmt.Sprint(i) {
			t.Fatalf("ack %+v, %v", ack, err)
		}
	}
	for i, m := range receiveN(t, cons, 3) {
		if string(m.Payload()) != fmt.Sprintf("ws-%d", i) || m.Key() != "k" || m.Properties()["i"] != fmt.Sprint(i) {
			t.Fatalf("official consumer got %q key %q props %v", m.Payload(), m.Key(), m.Properties())
		}
	}

	wsCons := wsDial(t, e.web, "/ws/v2/consumer/persistent/"+rest+"/ws-sub?subscriptionType=Shared")
	op, err := client.CreateProducer(official.ProducerOptions{Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	for i := range 3 {
		if _, err := op.Send(ctxT(t), &official.ProducerMessage{Payload: fmt.Appendf(nil, "pcg-%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		var m struct{ MessageID, Payload string }
		if err := websocket.JSON.Receive(wsCons, &m); err != nil {
			t.Fatal(err)
		}
		if p, _ := base64.StdEncoding.DecodeString(m.Payload); string(p) != fmt.Sprintf("pcg-%d", i) {
			t.Fatalf("WebSocket consumer got %q", p)
		}
		if err := websocket.JSON.Send(wsCons, map[string]string{"messageId": m.MessageID}); err != nil {
			t.Fatal(err)
		}
	}
}
