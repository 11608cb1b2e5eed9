package brokerstub

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// compactSend sends one keyed message (key "" for none) on producer 1 of c.
func compactSend(t *testing.T, c *rawClient, name string, seq uint64, key, value string) {
	t.Helper()
	md := &proto.MessageMetadata{ProducerName: &name, SequenceId: &seq, PublishTime: gproto.Uint64(1),
		UncompressedSize: gproto.Uint32(uint32(len(value)))}
	if key != "" {
		md.PartitionKey = &key
	}
	c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
		ProducerId: gproto.Uint64(1), SequenceId: &seq}}, md, []byte(value))
	c.expect(proto.BaseCommand_SEND_RECEIPT)
}

// compactSendBatch sends one batch of key=value messages.
func compactSendBatch(t *testing.T, c *rawClient, name string, seq uint64, kvs ...string) {
	t.Helper()
	var raw []byte
	for _, s := range kvs {
		k, v, _ := strings.Cut(s, "=")
		var err error
		if raw, err = wire.AppendBatchEntry(raw, &proto.SingleMessageMetadata{PartitionKey: &k}, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	md := &proto.MessageMetadata{ProducerName: &name, SequenceId: &seq, PublishTime: gproto.Uint64(1),
		NumMessagesInBatch: gproto.Int32(int32(len(kvs))), UncompressedSize: gproto.Uint32(uint32(len(raw)))}
	c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
		ProducerId: gproto.Uint64(1), SequenceId: &seq, NumMessages: gproto.Int32(int32(len(kvs)))}}, md, raw)
	c.expect(proto.BaseCommand_SEND_RECEIPT)
}

// readCompacted subscribes a reader (non-durable, Exclusive, from the
// earliest message) with readCompacted and returns what it receives until
// nothing arrives: "key=value" per message, "-" for a compacted-out one.
func readCompacted(t *testing.T, b *Broker, topic, sub string, compacted bool) []string {
	t.Helper()
	c := dialRaw(t, b)
	c.connect()
	earliest := &proto.MessageIdData{LedgerId: gproto.Uint64(^uint64(0)), EntryId: gproto.Uint64(^uint64(0))}
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &topic, Subscription: &sub, SubType: proto.CommandSubscribe_Exclusive.Enum(),
		ConsumerId: gproto.Uint64(1), RequestId: gproto.Uint64(1), Durable: gproto.Bool(false),
		StartMessageId: earliest, ReadCompacted: gproto.Bool(compacted)}})
	c.expect(proto.BaseCommand_SUCCESS)
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{
		ConsumerId: gproto.Uint64(1), MessagePermits: gproto.Uint32(1000)}})
	var got []string
	for {
		_ = c.nc.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		f, err := c.r.ReadFrame()
		if err != nil {
			return got
		}
		if f.Cmd.GetType() != proto.BaseCommand_MESSAGE {
			continue
		}
		md := f.Meta
		if !wire.IsBatch(md) {
			got = append(got, md.GetPartitionKey()+"="+string(f.Payload))
			continue
		}
		msgs, err := wire.DecodeBatch(f.Payload, int(md.GetNumMessagesInBatch()))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.Meta.GetCompactedOut() {
				got = append(got, "-")
			} else {
				got = append(got, m.Meta.GetPartitionKey()+"="+string(m.Body))
			}
		}
	}
}

// TestCompactionReadCompacted: after PUT .../compaction a readCompacted
// reader gets the latest message of each key up to the horizon (deleted
// keys and keyless messages gone, batches with compacted-out slots), then
// every message after it; a reader without readCompacted gets everything;
// the status says SUCCESS; the __compaction subscription marks the horizon.
func TestCompactionReadCompacted(t *testing.T) {
	b := RunT(t)
	const topic = "persistent://public/default/compact"
	p, name := rawProducer(t, b, topic)
	compactSend(t, p, name, 0, "a", "a1")
	compactSend(t, p, name, 1, "b", "b1")
	compactSend(t, p, name, 2, "", "nokey")
	compactSendBatch(t, p, name, 3, "a=a2", "c=c1", "a=a2b")
	compactSend(t, p, name, 4, "b", "") // deletes b
	const path = "/admin/v2/persistent/public/default/compact/compaction"
	if code, body := adminDo(t, b, http.MethodGet, path, ""); code != 200 || !strings.Contains(body, `"NOT_RUN"`) {
		t.Errorf("status before: %d %s", code, body)
	}
	if code, body := adminDo(t, b, http.MethodPut, path, ""); code != http.StatusNoContent {
		t.Fatalf("compact: %d %s", code, body)
	}
	if code, body := adminDo(t, b, http.MethodGet, path, ""); code != 200 || !strings.Contains(body, `"SUCCESS"`) {
		t.Errorf("status after: %d %s", code, body)
	}
	compactSend(t, p, name, 5, "a", "a3") // after the horizon: read as it is
	compactSend(t, p, name, 6, "", "late")

	want := []string{"-", "c=c1", "a=a2b", "a=a3", "=late"}
	if got := readCompacted(t, b, topic, "r1", true); !slices.Equal(got, want) {
		t.Errorf("readCompacted: %q, want %q", got, want)
	}
	all := []string{"a=a1", "b=b1", "=nokey", "a=a2", "c=c1", "a=a2b", "b=", "a=a3", "=late"}
	if got := readCompacted(t, b, topic, "r2", false); !slices.Equal(got, all) {
		t.Errorf("without readCompacted: %q, want %q", got, all)
	}
	if code, body := adminDo(t, b, http.MethodGet, "/admin/v2/persistent/public/default/compact/subscriptions", ""); !strings.Contains(body, "__compaction") {
		t.Errorf("subscriptions: %d %s, want __compaction", code, body)
	}
}

// TestCompactionSurvivesRestart: the view and its horizon are in the store.
func TestCompactionSurvivesRestart(t *testing.T) {
	b := RunT(t, Options{DataDir: t.TempDir()})
	const topic = "persistent://public/default/compact-restart"
	p, name := rawProducer(t, b, topic)
	compactSend(t, p, name, 0, "a", "a1")
	compactSend(t, p, name, 1, "a", "a2")
	if code, body := adminDo(t, b, http.MethodPut, "/admin/v2/persistent/public/default/compact-restart/compaction", ""); code != 204 {
		t.Fatalf("compact: %d %s", code, body)
	}
	if err := b.Restart(); err != nil {
		t.Fatal(err)
	}
	if got := readCompacted(t, b, topic, "r3", true); !slices.Equal(got, []string{"a=a2"}) {
		t.Errorf("after restart: %q, want [a=a2]", got)
	}
}

// TestCompactionRefusals: readCompacted on a Shared subscription is
// NotAllowed with Pulsar's text; compaction of a missing topic is 404.
func TestCompactionRefusals(t *testing.T) {
	b := RunT(t)
	c := dialRaw(t, b)
	c.connect()
	topic := "persistent://public/default/compact-shared"
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &topic, Subscription: gproto.String("s"), SubType: proto.CommandSubscribe_Shared.Enum(),
		ConsumerId: gproto.Uint64(1), RequestId: gproto.Uint64(1), ReadCompacted: gproto.Bool(true)}})
	e := c.expect(proto.BaseCommand_ERROR).GetError()
	if e.GetError() != proto.ServerError_NotAllowedError || e.GetMessage() != "readCompacted only allowed on failover or exclusive subscriptions" {
		t.Errorf("Shared readCompacted: %v %q", e.GetError(), e.GetMessage())
	}
	if code, body := adminDo(t, b, http.MethodPut, "/admin/v2/persistent/public/default/nosuch/compaction", ""); code != http.StatusNotFound {
		t.Errorf("compact a missing topic: %d %s, want 404", code, body)
	}
}

// TestCompactionMonitor: with a threshold, the monitor (on the injected
// clock) compacts once the backlog passes it; a namespace policy of 0
// turns it off for that namespace.
func TestCompactionMonitor(t *testing.T) {
	clk := NewFakeClock(time.Unix(1_700_000_000, 0))
	b := RunT(t, Options{Clock: clk, Compaction: CompactionOptions{ThresholdBytes: 10, MonitorInterval: time.Minute}})
	const topic = "persistent://public/default/compact-monitor"
	p, name := rawProducer(t, b, topic)
	for i := range 5 {
		compactSend(t, p, name, uint64(i), "k", "value-"+string(rune('0'+i)))
	}
	status := func() string {
		_, body := adminDo(t, b, http.MethodGet, "/admin/v2/persistent/public/default/compact-monitor/compaction", "")
		return body
	}
	clk.Advance(30 * time.Second)
	if s := status(); !strings.Contains(s, "NOT_RUN") {
		t.Fatalf("before the interval: %s", s)
	}
	clk.Advance(31 * time.Second)
	// The monitor's compaction is queued on the topic goroutine before the
	// status request, so it has run when the status is read.
	if s := status(); !strings.Contains(s, "SUCCESS") {
		t.Fatalf("after the interval: %s", s)
	}
	if got := readCompacted(t, b, topic, "r4", true); !slices.Equal(got, []string{"k=value-4"}) {
		t.Errorf("after the monitor: %q", got)
	}
	// The namespace sets 0: no more compaction there.
	if code, body := adminDo(t, b, http.MethodPost, "/admin/v2/namespaces/public/default/compactionThreshold", "0"); code/100 != 2 {
		t.Fatalf("set threshold: %d %s", code, body)
	}
	compactSend(t, p, name, 5, "k", "value-after")
	clk.Advance(2 * time.Minute)
	if got := readCompacted(t, b, topic, "r5", true); !slices.Equal(got, []string{"k=value-4", "k=value-after"}) {
		t.Errorf("threshold 0: %q, want the new message read after the horizon", got)
	}
}
