package brokerstub

import (
	"strings"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/protocol"

	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

// maxConcurrentLookupRequest: with every permit taken, LOOKUP and
// PARTITIONED_METADATA are TooManyRequests with Pulsar's text; each
// answered lookup gives its permit back.
func TestLookupLimit(t *testing.T) {
	cfg, err := ParseConfig(strings.NewReader("maxConcurrentLookupRequest=2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Options.MaxConcurrentLookups != 2 {
		t.Fatalf("MaxConcurrentLookups %d", cfg.Options.MaxConcurrentLookups)
	}
	b := RunT(t, cfg.Options)
	c := dialRaw(t, b)
	c.connect()
	topic := "persistent://public/default/lookups"
	for i := 0; i < 3; i++ { // more than the limit, one at a time
		if r := lookupRaw(c, topic); r.GetResponse() != proto.CommandLookupTopicResponse_Connect {
			t.Fatalf("lookup %d: %v", i, r)
		}
	}
	if n := b.srv.Lookups.Load(); n != 0 {
		t.Fatalf("%d permits held after the lookups were answered", n)
	}
	b.srv.Lookups.Add(2) // two lookups in flight elsewhere
	r := lookupRaw(c, topic)
	if r.GetError() != proto.ServerError_TooManyRequests || r.GetMessage() != protocol.TooManyLookups {
		t.Fatalf("lookup over the limit: %v", r)
	}
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PARTITIONED_METADATA.Enum(), PartitionMetadata: &proto.CommandPartitionedTopicMetadata{
		Topic: gproto.String(topic), RequestId: gproto.Uint64(2)}})
	pm := c.expect(proto.BaseCommand_PARTITIONED_METADATA_RESPONSE).GetPartitionMetadataResponse()
	if pm.GetError() != proto.ServerError_TooManyRequests || pm.GetMessage() != protocol.TooManyLookups {
		t.Fatalf("partitioned metadata over the limit: %v", pm)
	}
	b.srv.Lookups.Add(-1)
	if r := lookupRaw(c, topic); r.GetResponse() != proto.CommandLookupTopicResponse_Connect {
		t.Fatalf("lookup once a permit is free: %v", r)
	}
}

func TestLookupLimitConfigRefusals(t *testing.T) {
	for _, conf := range []string{"maxConcurrentLookupRequest=0", "maxConcurrentTopicLoadRequest=0", "maxConcurrentTopicLoadRequest=-1"} {
		if _, err := ParseConfig(strings.NewReader(conf + "\n")); err == nil || !strings.Contains(err.Error(), strings.Split(conf, "=")[0]) {
			t.Errorf("%s: %v, want a refusal naming the key", conf, err)
		}
	}
	if _, err := ParseConfig(strings.NewReader("maxConcurrentTopicLoadRequest=1\n")); err != nil {
		t.Errorf("maxConcurrentTopicLoadRequest=1: %v", err)
	}
}
