package brokerstub

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/admin"
	"github.com/pulsargo/sdk/brokerstub/internal/websocket"
	"github.com/pulsargo/sdk/messageid"
	"github.com/pulsargo/sdk/pulsar"
)

func wsBroker(t *testing.T, o Options) *Broker {
	t.Helper()
	o.WebSocket.Enabled = true
	return RunT(t, o)
}

func wsCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func sdkClient(t *testing.T, b *Broker) pulsar.Client {
	t.Helper()
	c, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// Messages produced over the WebSocket API reach an SDK consumer with
// their payload, key and properties, and the message id in the producer's
// ack is the id the consumer gets.
func TestWebSocketProduceSDKConsumes(t *testing.T) {
	b := wsBroker(t, Options{})
	ctx := wsCtx(t)
	cons, err := sdkClient(t, b).Subscribe(pulsar.ConsumerOptions{Topic: "persistent://public/default/ws-in", SubscriptionName: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	ws, code, body := dialWSTest(t, b, "/ws/v2/producer/persistent/public/default/ws-in", nil)
	if ws == nil {
		t.Fatalf("upgrade refused: %d %s", code, body)
	}
	for i := range 3 {
		ws.sendJSON(map[string]any{"payload": base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "m%d", i)),
			"properties": map[string]string{"n": fmt.Sprint(i)}, "key": fmt.Sprintf("k%d", i), "context": fmt.Sprintf("c%d", i)})
	}
	var ids []string
	for i := range 3 {
		var ack admin.WsProducerAck
		ws.readJSON(&ack)
		if ack.Result != "ok" || ack.Context != fmt.Sprintf("c%d", i) || ack.MessageID == "" {
			t.Fatalf("ack %d = %+v", i, ack)
		}
		ids = append(ids, ack.MessageID)
	}
	for i := range 3 {
		m, err := cons.Receive(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if string(m.Payload()) != fmt.Sprintf("m%d", i) || m.Key() != fmt.Sprintf("k%d", i) || m.Properties()["n"] != fmt.Sprint(i) {
			t.Fatalf("message %d: %q key %q props %v", i, m.Payload(), m.Key(), m.Properties())
		}
		raw, _ := base64.StdEncoding.DecodeString(ids[i])
		id, err := messageid.Deserialize(raw)
		if err != nil || messageid.Compare(id, m.ID()) != 0 {
			t.Fatalf("ack id %s (%v, %v) != consumed id %v", ids[i], id, err, m.ID())
		}
	}
	// A bad payload is answered, and the session goes on.
	ws.sendJSON(map[string]any{"payload": "not base64!", "context": "bad"})
	var ack admin.WsProducerAck
	ws.readJSON(&ack)
	if ack.Result != "send-error:7" || ack.Context != "bad" {
		t.Fatalf("bad payload ack = %+v", ack)
	}
}

// An SDK producer's batched messages reach a WebSocket consumer one by
// one; acks by messageId are kept: a new session of the subscription gets
// only the messages not acknowledged.
func TestWebSocketConsumerAcksSDKBatches(t *testing.T) {
	b := wsBroker(t, Options{})
	ctx := wsCtx(t)
	path := "/ws/v2/consumer/persistent/public/default/ws-out/sub?subscriptionType=Shared&receiverQueueSize=10"
	ws, code, body := dialWSTest(t, b, path, nil)
	if ws == nil {
		t.Fatalf("upgrade refused: %d %s", code, body)
	}
	prod, err := sdkClient(t, b).CreateProducer(pulsar.ProducerOptions{Topic: "persistent://public/default/ws-out",
		BatchingMaxMessages: 5, BatchingMaxPublishDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		prod.SendAsync(ctx, &pulsar.ProducerMessage{Payload: fmt.Appendf(nil, "b%d", i), Key: "k", Properties: map[string]string{"i": fmt.Sprint(i)}}, nil)
	}
	if err := prod.Flush(); err != nil {
		t.Fatal(err)
	}
	var got []admin.WsConsumerMessage
	for range 5 {
		var m admin.WsConsumerMessage
		ws.readJSON(&m)
		got = append(got, m)
	}
	for i, m := range got {
		p, _ := base64.StdEncoding.DecodeString(m.Payload)
		if string(p) != fmt.Sprintf("b%d", i) || m.Key != "k" || m.Properties["i"] != fmt.Sprint(i) || m.PublishTime == "" {
			t.Fatalf("message %d = %+v", i, m)
		}
	}
	for _, m := range got[:3] {
		ws.sendJSON(map[string]string{"messageId": m.MessageID})
	}
	ws.sendFrame(true, websocket.OpClose, []byte{0x03, 0xE8})
	ws.readClose()

	// As Pulsar's WebSocket service (its Java consumer acks batches whole):
	// a batch acked in part comes again, all of it.
	ws2, code, body := dialWSTest(t, b, path, nil)
	if ws2 == nil {
		t.Fatalf("upgrade refused: %d %s", code, body)
	}
	for i := range 5 {
		var m admin.WsConsumerMessage
		ws2.readJSON(&m)
		if p, _ := base64.StdEncoding.DecodeString(m.Payload); string(p) != fmt.Sprintf("b%d", i) {
			t.Fatalf("redelivered %q, want b%d", p, i)
		}
		ws2.sendJSON(map[string]string{"messageId": m.MessageID})
	}
	if _, err := prod.Send(ctx, &pulsar.ProducerMessage{Payload: []byte("marker")}); err != nil {
		t.Fatal(err)
	}
	var m admin.WsConsumerMessage
	ws2.readJSON(&m)
	ws2.sendFrame(true, websocket.OpClose, []byte{0x03, 0xE8})
	ws2.readClose()
	// Every message of the batch acked: the next session gets the marker
	// (not acked) and nothing of the batch.
	ws3, code, body := dialWSTest(t, b, path, nil)
	if ws3 == nil {
		t.Fatalf("upgrade refused: %d %s", code, body)
	}
	ws3.readJSON(&m)
	if p, _ := base64.StdEncoding.DecodeString(m.Payload); string(p) != "marker" {
		t.Fatalf("after acking the batch whole, got %q first, want marker", p)
	}
}

// A reader starts after the message id it is given (or at the earliest);
// isEndOfTopic answers as Pulsar's.
func TestWebSocketReader(t *testing.T) {
	b := wsBroker(t, Options{})
	ctx := wsCtx(t)
	prod, err := sdkClient(t, b).CreateProducer(pulsar.ProducerOptions{Topic: "persistent://public/default/ws-r", DisableBatching: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []pulsar.MessageID
	for i := range 4 {
		id, err := prod.Send(ctx, &pulsar.ProducerMessage{Payload: fmt.Appendf(nil, "r%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	read := func(query string, want ...string) *wsTestClient {
		ws, code, body := dialWSTest(t, b, "/ws/v2/reader/persistent/public/default/ws-r?"+query, nil)
		if ws == nil {
			t.Fatalf("%s: upgrade refused: %d %s", query, code, body)
		}
		for _, w := range want {
			var m admin.WsConsumerMessage
			ws.readJSON(&m)
			if p, _ := base64.StdEncoding.DecodeString(m.Payload); string(p) != w {
				t.Fatalf("%s: read %q, want %q", query, p, w)
			}
			ws.sendJSON(map[string]string{"messageId": m.MessageID})
		}
		return ws
	}
	read("messageId=earliest", "r0", "r1", "r2", "r3")
	after := base64.StdEncoding.EncodeToString(ids[1].Serialize())
	ws := read("messageId="+after, "r2", "r3")
	ws.sendJSON(map[string]string{"type": "isEndOfTopic"})
	var end map[string]bool
	ws.readJSON(&end)
	if v, ok := end["endOfTopic"]; !ok || v {
		t.Fatalf("isEndOfTopic = %v, want false", end)
	}
}

// In pull mode nothing is delivered before the client gives permits.
func TestWebSocketPullMode(t *testing.T) {
	b := wsBroker(t, Options{})
	ctx := wsCtx(t)
	ws, code, body := dialWSTest(t, b, "/ws/v2/consumer/persistent/public/default/ws-pull/s?pullMode=true", nil)
	if ws == nil {
		t.Fatalf("upgrade refused: %d %s", code, body)
	}
	prod, err := sdkClient(t, b).CreateProducer(pulsar.ProducerOptions{Topic: "persistent://public/default/ws-pull", DisableBatching: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := prod.Send(ctx, &pulsar.ProducerMessage{Payload: fmt.Appendf(nil, "p%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	// Nothing before a permit: the first frame after the permit is p0, and
	// only one message comes for one permit (isEndOfTopic's answer is next).
	ws.sendJSON(map[string]any{"type": "permit", "permitMessages": 1})
	var m admin.WsConsumerMessage
	ws.readJSON(&m)
	if p, _ := base64.StdEncoding.DecodeString(m.Payload); string(p) != "p0" {
		t.Fatalf("first message %q", p)
	}
	time.Sleep(50 * time.Millisecond) // give a wrongly sent second message time to arrive first
	ws.sendJSON(map[string]string{"type": "isEndOfTopic"})
	var end map[string]any
	ws.readJSON(&end)
	if _, ok := end["endOfTopic"]; !ok {
		t.Fatalf("got %v, want the isEndOfTopic answer (no message without a permit)", end)
	}
}

func TestWebSocketDisabledIs404(t *testing.T) {
	b := RunT(t, Options{})
	_, code, _ := dialWSTest(t, b, "/ws/v2/producer/persistent/public/default/t", nil)
	if code != http.StatusNotFound {
		t.Fatalf("status %d, want 404", code)
	}
}

// Authentication as the admin API's (or the "token" query parameter) and
// authorization by the topic's produce/consume permission, before the
// upgrade, with Pulsar's statuses.
func TestWebSocketAuthRefusals(t *testing.T) {
	secret := []byte("ws secret")
	tok := mustProvider(t, TokenOptions{SecretKey: secret})
	b := wsBroker(t, Options{AuthenticationEnabled: true, AuthorizationEnabled: true,
		AuthenticationProviders: []AuthenticationProvider{tok}, SuperUserRoles: []string{"admin"}})
	admin, other := hs256(t, secret, jwtClaims{"sub": "admin"}), hs256(t, secret, jwtClaims{"sub": "other"})
	path := "/ws/v2/producer/persistent/public/default/ws-auth"
	if _, code, body := dialWSTest(t, b, path, nil); code != http.StatusUnauthorized {
		t.Fatalf("no credentials: %d %s", code, body)
	}
	if _, code, body := dialWSTest(t, b, path, http.Header{"Authorization": {"Bearer " + other}}); code != http.StatusForbidden {
		t.Fatalf("role without permission: %d %s", code, body)
	}
	if _, code, body := dialWSTest(t, b, "/ws/v2/consumer/persistent/public/default/ws-auth/s?token="+other, nil); code != http.StatusForbidden {
		t.Fatalf("consumer, role without permission: %d %s", code, body)
	}
	if ws, code, body := dialWSTest(t, b, path, http.Header{"Authorization": {"Bearer " + admin}}); ws == nil {
		t.Fatalf("super user: %d %s", code, body)
	}
	if ws, code, body := dialWSTest(t, b, path+"?token="+admin, nil); ws == nil {
		t.Fatalf("super user by token query parameter: %d %s", code, body)
	}
}

// A second exclusive consumer is refused before the upgrade with 409.
func TestWebSocketConsumerBusyIs409(t *testing.T) {
	b := wsBroker(t, Options{})
	path := "/ws/v2/consumer/persistent/public/default/ws-busy/s"
	if ws, code, body := dialWSTest(t, b, path, nil); ws == nil {
		t.Fatalf("first: %d %s", code, body)
	}
	if _, code, body := dialWSTest(t, b, path, nil); code != http.StatusConflict {
		t.Fatalf("second exclusive consumer: %d %s, want 409", code, body)
	}
}

// webSocketMaxTextFrameSize: a larger message closes the session with 1009.
func TestWebSocketMaxTextFrameSize(t *testing.T) {
	b := wsBroker(t, Options{WebSocket: WebSocketOptions{MaxTextFrameSize: 100}})
	ws, code, body := dialWSTest(t, b, "/ws/v2/producer/persistent/public/default/ws-big", nil)
	if ws == nil {
		t.Fatalf("upgrade refused: %d %s", code, body)
	}
	ws.sendFrame(false, websocket.OpText, make([]byte, 60))
	ws.sendFrame(true, websocket.OpContinuation, make([]byte, 60))
	if c := ws.readClose(); c != websocket.CloseMessageTooBig {
		t.Fatalf("close code %d, want 1009", c)
	}
}

// webSocketSessionIdleTimeoutMillis on the broker's clock: activity
// pushes the deadline; silence past it closes the session.
func TestWebSocketIdleTimeout(t *testing.T) {
	clk := NewFakeClock(time.Unix(1_700_000_000, 0))
	b := wsBroker(t, Options{Clock: clk, WebSocket: WebSocketOptions{SessionIdleTimeout: 10 * time.Second}})
	ws, code, body := dialWSTest(t, b, "/ws/v2/producer/persistent/public/default/ws-idle", nil)
	if ws == nil {
		t.Fatalf("upgrade refused: %d %s", code, body)
	}
	clk.Advance(6 * time.Second)
	ws.sendJSON(map[string]any{"payload": "AA==", "context": "x"})
	var ack admin.WsProducerAck
	ws.readJSON(&ack)
	if ack.Result != "ok" {
		t.Fatalf("ack %+v", ack)
	}
	clk.Advance(6 * time.Second) // 12 s after the start, 6 s after the message
	ws.sendJSON(map[string]any{"payload": "AA==", "context": "y"})
	ws.readJSON(&ack)
	if ack.Result != "ok" || ack.Context != "y" {
		t.Fatalf("session closed before its idle timeout: %+v", ack)
	}
	clk.Advance(11 * time.Second)
	if c := ws.readClose(); c != websocket.CloseGoingAway {
		t.Fatalf("close code %d, want 1001", c)
	}
}

// A partitioned topic: the producer routes by key over the partitions, the
// consumer subscribes to each, and its acks reach the right partition.
func TestWebSocketPartitionedTopic(t *testing.T) {
	b := wsBroker(t, Options{})
	if code, out := adminDo(t, b, http.MethodPut, "/admin/v2/persistent/public/default/ws-parts/partitions", "2"); code != http.StatusNoContent {
		t.Fatalf("create partitioned topic: %d %s", code, out)
	}
	cons, code, body := dialWSTest(t, b, "/ws/v2/consumer/persistent/public/default/ws-parts/s?subscriptionType=Shared", nil)
	if cons == nil {
		t.Fatalf("consumer: %d %s", code, body)
	}
	prod, code, body := dialWSTest(t, b, "/ws/v2/producer/persistent/public/default/ws-parts", nil)
	if prod == nil {
		t.Fatalf("producer: %d %s", code, body)
	}
	partitions := map[int32]bool{}
	for i := range 8 {
		prod.sendJSON(map[string]any{"payload": base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "p%d", i)), "key": fmt.Sprintf("key-%d", i)})
		var ack admin.WsProducerAck
		prod.readJSON(&ack)
		id, err := admin.DecodeWSMessageID(ack.MessageID)
		if ack.Result != "ok" || err != nil {
			t.Fatalf("ack %+v %v", ack, err)
		}
		partitions[id.GetPartition()] = true
	}
	if !partitions[0] || !partitions[1] {
		t.Fatalf("messages went to partitions %v, want both", partitions)
	}
	got := map[string]bool{}
	for range 8 {
		var m admin.WsConsumerMessage
		cons.readJSON(&m)
		p, _ := base64.StdEncoding.DecodeString(m.Payload)
		got[string(p)] = true
		cons.sendJSON(map[string]string{"messageId": m.MessageID})
	}
	if len(got) != 8 {
		t.Fatalf("consumer got %v", got)
	}
	// The acks reached both partitions: a new session gets nothing old.
	cons.sendFrame(true, websocket.OpClose, []byte{0x03, 0xE8})
	cons.readClose()
	cons2, code, body := dialWSTest(t, b, "/ws/v2/consumer/persistent/public/default/ws-parts/s?subscriptionType=Shared", nil)
	if cons2 == nil {
		t.Fatalf("consumer again: %d %s", code, body)
	}
	prod.sendJSON(map[string]any{"payload": base64.StdEncoding.EncodeToString([]byte("marker")), "key": "key-0"})
	var m admin.WsConsumerMessage
	cons2.readJSON(&m)
	if p, _ := base64.StdEncoding.DecodeString(m.Payload); string(p) != "marker" {
		t.Fatalf("after acking all, got %q first, want marker", p)
	}
}

// Pull mode stops at receiverQueueSize messages not acked, whatever
// permits the client gave, and goes on as it acks.
func TestWebSocketPullModeBoundedByQueue(t *testing.T) {
	b := wsBroker(t, Options{})
	ctx := wsCtx(t)
	ws, code, body := dialWSTest(t, b, "/ws/v2/consumer/persistent/public/default/ws-pullq/s?pullMode=true&receiverQueueSize=2", nil)
	if ws == nil {
		t.Fatalf("upgrade refused: %d %s", code, body)
	}
	prod, err := sdkClient(t, b).CreateProducer(pulsar.ProducerOptions{Topic: "persistent://public/default/ws-pullq", DisableBatching: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := prod.Send(ctx, &pulsar.ProducerMessage{Payload: fmt.Appendf(nil, "q%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	ws.sendJSON(map[string]any{"type": "permit", "permitMessages": 5})
	var first admin.WsConsumerMessage
	ws.readJSON(&first)
	var second admin.WsConsumerMessage
	ws.readJSON(&second)
	time.Sleep(50 * time.Millisecond) // give a wrongly sent third message time to arrive first
	ws.sendJSON(map[string]string{"type": "isEndOfTopic"})
	var end map[string]any
	ws.readJSON(&end)
	if _, ok := end["endOfTopic"]; !ok {
		t.Fatalf("got %v, want the isEndOfTopic answer (2 unacked = receiverQueueSize)", end)
	}
	ws.sendJSON(map[string]string{"messageId": first.MessageID})
	var third admin.WsConsumerMessage
	ws.readJSON(&third)
	if p, _ := base64.StdEncoding.DecodeString(third.Payload); string(p) != "q2" {
		t.Fatalf("after an ack got %q, want q2", p)
	}
}
