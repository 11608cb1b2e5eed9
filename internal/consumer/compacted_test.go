package consumer

import (
	"testing"
	"testing/synctest"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
	"github.com/pulsargo/sdk/messageid"
)

// TestCompactedOutSlotsAreSkipped: a batch read from a compacted view keeps
// its size, the messages compaction removed left as empty slots flagged
// compacted_out. They are not messages: the application gets the others
// (as from Pulsar's Java client; the official Go client v0.19.0 hands them
// out as empty keyless messages), and acking those completes the entry.
func TestCompactedOutSlotsAreSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		e, out := v.engine(topic, "s", nil)
		var payload []byte
		for i, body := range []string{"", "b", ""} {
			smm := &proto.SingleMessageMetadata{PartitionKey: gproto.String([]string{"k1", "k2", "k3"}[i])}
			if body == "" {
				smm.CompactedOut = gproto.Bool(true)
			}
			var err error
			if payload, err = wire.AppendBatchEntry(payload, smm, []byte(body)); err != nil {
				t.Fatal(err)
			}
		}
		var gen, id uint64
		_ = e.call(func() { gen, id = e.gen, e.o.ConsumerID })
		l, entry := uint64(999), uint64(1)
		cm := &proto.CommandMessage{ConsumerId: &id, MessageId: &proto.MessageIdData{LedgerId: &l, EntryId: &entry}}
		f := &wire.Frame{Cmd: &proto.BaseCommand{Type: proto.BaseCommand_MESSAGE.Enum(), Message: cm},
			HasPayload: true, Meta: batchMeta(p, 3), Payload: payload}
		e.pushEvent(event{gen: gen, kind: evMessage, msg: cm, frame: f})
		m := recv(t, out)
		if string(m.Payload) != "b" || m.ID.BatchIdx() != 1 {
			t.Fatalf("got %q at batch index %d, want \"b\" at 1", m.Payload, m.ID.BatchIdx())
		}
		expectNone(t, out, time.Second)
		var complete bool
		_ = e.call(func() {
			t := e.tracked[posOf(m.ID.(messageid.ID))]
			setBit(t.acked, 1)
			complete = e.allAcked(t)
		})
		if !complete {
			t.Fatal("the entry is not complete once its only delivered message is acked: the compacted-out slots hold it")
		}
	})
}

// pushEvent queues ev as the connection's handler does: the loop is
// started to take it.
func (e *Engine[T]) pushEvent(ev event) bool {
	return (&handler{q: e.events, kick: e.kick}).push(ev)
}
