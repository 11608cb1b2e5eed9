package consumer

import (
	"testing"
	"testing/synctest"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/consumer/consumertest"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// The broker entry metadata of a delivered entry reaches every message of
// it (Message.Index and BrokerPublishTime are computed from it).
func TestBrokerEntryMetadataReachesMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		e, out := v.engine(topic, "s", nil)
		three, _ := consumertest.BatchPayload([][]byte{[]byte("a"), []byte("b"), []byte("c")}, nil)
		var gen, id uint64
		_ = e.call(func() { gen, id = e.gen, e.o.ConsumerID })
		l, entry := uint64(999), uint64(1)
		cm := &proto.CommandMessage{ConsumerId: &id, MessageId: &proto.MessageIdData{LedgerId: &l, EntryId: &entry}}
		bm := &proto.BrokerEntryMetadata{Index: gproto.Uint64(41), BrokerTimestamp: gproto.Uint64(1_700_000_000_123)}
		f := &wire.Frame{Cmd: &proto.BaseCommand{Type: proto.BaseCommand_MESSAGE.Enum(), Message: cm},
			HasPayload: true, Meta: batchMeta(p, 3), Payload: three, BrokerMeta: bm}
		e.pushEvent(event{gen: gen, kind: evMessage, msg: cm, frame: f})
		for _, m := range recvN(t, out, 3) {
			if m.BrokerMeta != bm {
				t.Fatalf("message %v has broker metadata %v", m.ID, m.BrokerMeta)
			}
		}
		// An entry without it: nil.
		if _, err := p.Send(ctxT(t), []byte("plain"), ""); err != nil {
			t.Fatal(err)
		}
		if m := recv(t, out); m.BrokerMeta != nil {
			t.Fatalf("plain entry has broker metadata %v", m.BrokerMeta)
		}
	})
}
