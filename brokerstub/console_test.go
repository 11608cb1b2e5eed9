package brokerstub

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub/internal/console"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// consoleGet serves one console request as the holder of auth ("" for
// none) and returns its status and body.
func consoleGet(t *testing.T, h http.Handler, path, auth string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "http://stub"+path, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

func TestConsoleOffByDefault(t *testing.T) {
	b := RunT(t, Options{NoListener: true})
	code, _ := consoleGet(t, b.AdminHandler(), "/console", "")
	require.Equal(t, http.StatusNotFound, code)
	code, _ = consoleGet(t, b.AdminHandler(), "/console/api/overview", "")
	require.Equal(t, http.StatusNotFound, code)
}

func TestConsolePagesAndViews(t *testing.T) {
	b := RunT(t, Options{Console: true})
	h := b.AdminHandler()
	code, body := consoleGet(t, h, "/console", "")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "/console/app.js")
	code, body = consoleGet(t, h, "/console/app.js", "")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "keySharedPage")
	code, _ = consoleGet(t, h, "/console/nope.js", "")
	require.Equal(t, http.StatusNotFound, code)

	const topic = "persistent://public/default/console-ks"
	c := dialKS(t, b)
	p := c.producer(topic, 1)
	c.mustSubscribe(topic, 1, "c1", 0) // no permits: what is sent stays
	for i := range 4 {
		p.Send("k"+string(rune('a'+i)), "v")
	}
	var ov console.Overview
	code, body = consoleGet(t, h, "/console/api/overview", "")
	require.Equal(t, http.StatusOK, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &ov))
	var found *console.TopicSummary
	for _, tn := range ov.Tenants {
		for _, ns := range tn.Namespaces {
			for i, tp := range ns.Topics {
				if tp.Name == topic {
					found = &ns.Topics[i]
				}
			}
		}
	}
	require.NotNil(t, found, body)
	require.Equal(t, int64(4), found.Backlog)
	require.Equal(t, 1, found.Producers)
	require.Equal(t, 1, found.Consumers)
	require.True(t, ov.Who.SuperUser, "authorization off: everyone is")

	path := "/persistent/public/default/console-ks"
	var tv console.Topic
	code, body = consoleGet(t, h, "/console/api/topic"+path, "")
	require.Equal(t, http.StatusOK, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &tv))
	require.Len(t, tv.Producers, 1)
	require.Equal(t, "Shared", tv.Producers[0].AccessMode)
	require.Len(t, tv.Subscriptions, 1)
	require.Equal(t, "Key_Shared", tv.Subscriptions[0].Type)
	require.Equal(t, int64(4), tv.Subscriptions[0].Backlog)
	require.NotEmpty(t, tv.Ledgers)

	var ks console.KeyShared
	code, body = consoleGet(t, h, "/console/api/keyshared"+path+"/s", "")
	require.Equal(t, http.StatusOK, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &ks))
	require.Len(t, ks.Consumers, 1)
	require.InDelta(t, 1.0, ks.Consumers[0].Share, 0.001, "one consumer owns the whole range")
	require.Equal(t, "no consumer has permits", ks.NormalReadStopped)

	var cur console.Cursor
	code, body = consoleGet(t, h, "/console/api/cursor"+path+"/s?limit=3", "")
	require.Equal(t, http.StatusOK, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &cur))
	require.Len(t, cur.Entries, 3)
	require.True(t, cur.More)
	require.Equal(t, "unread", cur.Entries[0].State)
	require.Equal(t, "ka", cur.Entries[0].Key)
	require.NotNil(t, cur.Entries[0].Hash)

	// One permit: the first entry is delivered, then acked; the
	// mark-delete moves past it.
	c.flow(1, 1)
	msgs := c.sync(1)
	require.Len(t, msgs, 1)
	code, body = consoleGet(t, h, "/console/api/cursor"+path+"/s", "")
	require.Equal(t, http.StatusOK, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &cur))
	require.Equal(t, "pending", cur.Entries[0].State)
	require.Equal(t, "c1", cur.Entries[0].Consumer)
	c.ack(1, msgs[0].Pos)
	c.barrier(1)
	code, body = consoleGet(t, h, "/console/api/cursor"+path+"/s", "")
	require.Equal(t, http.StatusOK, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &cur))
	require.Equal(t, fmtPos(msgs[0].Pos), cur.Subscription.MarkDelete)
	require.NotEqual(t, fmtPos(msgs[0].Pos), cur.Entries[0].Pos, "the line starts after mark-delete")

	var mv console.Messages
	code, body = consoleGet(t, h, "/console/api/messages"+path+"?n=2", "")
	require.Equal(t, http.StatusOK, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &mv))
	require.Len(t, mv.Entries, 2)
	require.Equal(t, "ka", mv.Entries[0].Key)
	require.Equal(t, "v", mv.Entries[0].Messages[0].Value)
	require.NotEmpty(t, mv.Next)

	for _, bad := range []string{"/console/api/cursor" + path + "/missing", "/console/api/keyshared" + path + "/missing"} {
		code, _ = consoleGet(t, h, bad, "")
		require.Equal(t, http.StatusNotFound, code, bad)
	}
	code, _ = consoleGet(t, h, "/console/api/messages"+path+"?from=x", "")
	require.Equal(t, http.StatusBadRequest, code)
}

func fmtPos(p Position) string { return fmt.Sprintf("%d:%d", p.Ledger, p.Entry) }

// TestConsoleAuthorization: the console is an admin client. Without
// credentials it gets nothing but the page; a role gets what the admin API
// would give it, and the overview names what it refused.
func TestConsoleAuthorization(t *testing.T) {
	secret := []byte(adminAuthzSecret)
	tok := mustProvider(t, TokenOptions{SecretKey: secret})
	b := RunT(t, Options{NoListener: true, Console: true, AuthenticationEnabled: true, AuthorizationEnabled: true,
		AuthenticationProviders: []AuthenticationProvider{tok}, SuperUserRoles: []string{"admin"}})
	h := b.AdminHandler()
	bearer := func(role string) string { return "Bearer " + hs256(t, secret, jwtClaims{"sub": role}) }
	for _, s := range []struct{ path, body string }{
		{"/admin/v2/tenants/acme", `{"adminRoles":["boss"],"allowedClusters":["standalone"]}`},
		{"/admin/v2/namespaces/acme/ns", `{}`},
		{"/admin/v2/persistent/acme/ns/t", ``},
	} {
		req := httptest.NewRequest(http.MethodPut, "http://stub"+s.path, strings.NewReader(s.body))
		req.Header.Set("Authorization", bearer("admin"))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Less(t, rec.Code, 300, s.path+": "+rec.Body.String())
	}
	code, _ := consoleGet(t, h, "/console", "")
	require.Equal(t, http.StatusOK, code, "the page itself holds no state")
	code, _ = consoleGet(t, h, "/console/api/whoami", "")
	require.Equal(t, http.StatusUnauthorized, code)

	code, body := consoleGet(t, h, "/console/api/whoami", bearer("boss"))
	require.Equal(t, http.StatusOK, code, body)
	var who console.Whoami
	require.NoError(t, json.Unmarshal([]byte(body), &who))
	require.Equal(t, console.Whoami{Role: "boss", Authentication: true, Authorization: true, TenantAdmin: []string{"acme"}}, who)

	path := "/console/api/topic/persistent/acme/ns/t"
	code, body = consoleGet(t, h, path, bearer("stranger"))
	require.Equal(t, http.StatusUnauthorized, code, body)
	require.Contains(t, body, "GET_STATS")
	code, body = consoleGet(t, h, "/console/api/messages/persistent/acme/ns/t", bearer("stranger"))
	require.Equal(t, http.StatusUnauthorized, code, body)
	require.Contains(t, body, "PEEK_MESSAGES")
	code, body = consoleGet(t, h, path, bearer("boss"))
	require.Equal(t, http.StatusOK, code, body)

	var ov console.Overview
	code, body = consoleGet(t, h, "/console/api/overview", bearer("stranger"))
	require.Equal(t, http.StatusOK, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &ov))
	require.NotContains(t, body, "persistent://acme/ns/t")
	var refusedNS bool
	for _, r := range ov.Refused {
		refusedNS = refusedNS || r.What == "topics of acme/ns" && r.Operation == "GET_TOPICS"
	}
	require.True(t, refusedNS, body)
	code, body = consoleGet(t, h, "/console/api/overview", bearer("boss"))
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, body, "persistent://acme/ns/t")
}

// TestConsoleStreamFollowsAndReleasesRestart: a live page gets a new view
// when the state changes, and an open stream does not hold a Restart back.
func TestConsoleStreamFollowsAndReleasesRestart(t *testing.T) {
	b := RunT(t, Options{Console: true})
	const topic = "persistent://public/default/console-live"
	c := dialKS(t, b)
	c.mustSubscribe(topic, 1, "c1", 10)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.WebServiceURL()+"/console/api/keyshared/persistent/public/default/console-live/s", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	events := make(chan console.KeyShared, 16)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var ks console.KeyShared
				if json.Unmarshal([]byte(data), &ks) == nil {
					events <- ks
				}
			}
		}
	}()
	next := func() console.KeyShared {
		select {
		case ks := <-events:
			return ks
		case <-time.After(10 * time.Second):
			t.Fatal("no event")
		}
		return console.KeyShared{}
	}
	require.Len(t, next().Consumers, 1)
	c2 := dialKS(t, b)
	c2.mustSubscribe(topic, 2, "c2", 10)
	ks := next()
	require.Len(t, ks.Consumers, 2, "the join is pushed")

	done := make(chan error, 1)
	go func() { done <- b.Restart() }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Restart waits for an open console stream")
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 0))
}

// TestConsoleKeySharedExplainsHeldBack: a message of a hash that moved to
// a joining consumer while the old one still holds an entry of it waits;
// the Key_Shared page names the hash draining at the old consumer, the
// owner that waits, and why the message is held back. The ack ends both.
func TestConsoleKeySharedExplainsHeldBack(t *testing.T) {
	b := RunT(t, Options{Console: true})
	h := b.AdminHandler()
	const topic = "persistent://public/default/console-held"
	key := keysFor(t, 1, []string{"c1"}, "c1", "c2", "c2")[0]
	c := dialKS(t, b)
	p := c.producer(topic, 1)
	c.mustSubscribe(topic, 1, "c1", 1)
	first := p.Send(key, "m1")
	require.Len(t, c.sync(1), 1)
	c.mustSubscribe(topic, 2, "c2", 10)
	p.Send(key, "m2")
	c.barrier(2)

	view := func() console.KeyShared {
		t.Helper()
		code, body := consoleGet(t, h, "/console/api/keyshared/persistent/public/default/console-held/s", "")
		require.Equal(t, http.StatusOK, code, body)
		var ks console.KeyShared
		require.NoError(t, json.Unmarshal([]byte(body), &ks))
		return ks
	}
	ks := view()
	require.Len(t, ks.Draining, 1, "%+v", ks)
	d := ks.Draining[0]
	require.Equal(t, "c1", d.HeldBy)
	require.Equal(t, "c2", d.Owner)
	require.Equal(t, 1, d.Unacked)
	require.Len(t, ks.HeldBack, 1, "%+v", ks)
	require.Equal(t, key, ks.HeldBack[0].Key)
	require.Equal(t, d.Hash, ks.HeldBack[0].Hash)
	require.Contains(t, ks.HeldBack[0].Reason, "waits for c1 to ack 1 entries")

	c.ack(1, first)
	c.sync(2)
	ks = view()
	require.Empty(t, ks.Draining)
	require.Empty(t, ks.HeldBack)
}

// TestConsoleCursorPartialBatch: a batch acknowledged in part is drawn as
// "partial" with the indexes acknowledged, and the message browser splits
// it into its messages.
func TestConsoleCursorPartialBatch(t *testing.T) {
	b := RunT(t, Options{Console: true})
	h := b.AdminHandler()
	const topic = "persistent://public/default/console-batch"
	c := dialKS(t, b)
	p := c.producer(topic, 1)
	c.mustSubscribe(topic, 1, "c1", 10)
	var batch []byte
	for i := range 3 {
		var err error
		batch, err = wire.AppendBatchEntry(batch, &proto.SingleMessageMetadata{PartitionKey: gproto.String(fmt.Sprint("k", i))}, []byte(fmt.Sprint("m", i)))
		require.NoError(t, err)
	}
	seq := uint64(0)
	md := &proto.MessageMetadata{ProducerName: &p.name, SequenceId: &seq, PublishTime: gproto.Uint64(1), NumMessagesInBatch: gproto.Int32(3)}
	c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
		ProducerId: &p.id, SequenceId: &seq, NumMessages: gproto.Int32(3)}}, md, batch)
	c.readUntil(proto.BaseCommand_SEND_RECEIPT)
	msgs := c.sync(1)
	require.Len(t, msgs, 1)
	// Acknowledge index 1 only: its bit cleared in the ack set.
	rid := c.nextRID()
	id := uint64(1)
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_ACK.Enum(), Ack: &proto.CommandAck{ConsumerId: &id, RequestId: &rid,
		AckType: proto.CommandAck_Individual.Enum(), MessageId: []*proto.MessageIdData{{LedgerId: gproto.Uint64(uint64(msgs[0].Pos.Ledger)),
			EntryId: gproto.Uint64(uint64(msgs[0].Pos.Entry)), AckSet: []int64{0b101}}}}})
	c.readUntil(proto.BaseCommand_ACK_RESPONSE)
	entry := func() console.CursorEntry {
		t.Helper()
		var cur console.Cursor
		code, body := consoleGet(t, h, "/console/api/cursor/persistent/public/default/console-batch/s", "")
		require.Equal(t, http.StatusOK, code, body)
		require.NoError(t, json.Unmarshal([]byte(body), &cur))
		require.Len(t, cur.Entries, 1, body)
		return cur.Entries[0]
	}
	e := entry()
	require.Equal(t, "pending", e.State)
	require.Equal(t, "c1", e.Consumer)
	require.Equal(t, int32(3), e.Batch)
	require.Equal(t, []int{1}, e.AckedIndexes)
	c.closeConsumer(1) // the last consumer left: the entry waits to be read again
	e = entry()
	require.Equal(t, "partial", e.State)
	require.Equal(t, []int{1}, e.AckedIndexes)

	var mv console.Messages
	code, body := consoleGet(t, h, "/console/api/messages/persistent/public/default/console-batch", "")
	require.Equal(t, http.StatusOK, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &mv))
	require.Len(t, mv.Entries, 1)
	require.Equal(t, int32(3), mv.Entries[0].Batch)
	require.Len(t, mv.Entries[0].Messages, 3)
	require.Equal(t, "k2", mv.Entries[0].Messages[2].Key)
	require.Equal(t, "m2", mv.Entries[0].Messages[2].Value)
}

// TestConsoleDelayedAndNoPermits: a delayed message is drawn "delayed"
// on the cursor line until it falls due; once due while its key's owner
// has no permits, the Key_Shared page holds it back for that reason and
// says why no new entry is read.
func TestConsoleDelayedAndNoPermits(t *testing.T) {
	clk := NewFakeClock(delayT0)
	b := RunT(t, Options{Clock: clk, DelayedDeliveryStrict: true, Console: true})
	h := b.AdminHandler()
	const topic = "persistent://public/default/console-delay"
	const path = "/persistent/public/default/console-delay/s"
	c := dialKS(t, b)
	c.mustSubscribe(topic, 1, "c1", 2)
	p := c.producer(topic, 1)
	d0 := p.sendAt("k", "d0", delayT0.Add(10*time.Second))
	p.sendAt("k", "m1", time.Time{})
	p.sendAt("k", "m2", time.Time{})
	require.Len(t, c.sync(1), 2)

	var cur console.Cursor
	code, body := consoleGet(t, h, "/console/api/cursor"+path, "")
	require.Equal(t, http.StatusOK, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &cur))
	require.Equal(t, fmtPos(d0), cur.Entries[0].Pos)
	require.Equal(t, "delayed", cur.Entries[0].State, body)
	require.Equal(t, delayT0.Add(10*time.Second).UnixMilli(), cur.Entries[0].DeliverAt)
	require.Equal(t, 1, cur.Delayed)
	require.Equal(t, "pending", cur.Entries[1].State)

	clk.Advance(10 * time.Second)
	p.sendAt("k", "m3", time.Time{})
	c.barrier(1)
	var ks console.KeyShared
	code, body = consoleGet(t, h, "/console/api/keyshared"+path, "")
	require.Equal(t, http.StatusOK, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &ks))
	require.Len(t, ks.HeldBack, 1, body)
	require.Equal(t, fmtPos(d0), ks.HeldBack[0].Pos)
	require.Equal(t, "c1 has no permits", ks.HeldBack[0].Reason)
	require.Equal(t, "no consumer has permits", ks.NormalReadStopped)
}
