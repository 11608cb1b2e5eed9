package pulsar

import (
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/consumer"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

// Index and BrokerPublishTime follow the official client: the entry's
// index is its last message's, each message of a batch has its own.
func TestMessageIndexAndBrokerPublishTime(t *testing.T) {
	bm := &proto.BrokerEntryMetadata{Index: gproto.Uint64(41), BrokerTimestamp: gproto.Uint64(1_700_000_000_123)}
	batch := &proto.MessageMetadata{NumMessagesInBatch: gproto.Int32(3)}
	for i, want := range []uint64{39, 40, 41} {
		m := newMessage(&consumer.Message{ID: messageid.New(7, 1, int32(i), -1, 3), Meta: batch,
			Single: &proto.SingleMessageMetadata{}, BrokerMeta: bm}, nil)
		if got := m.Index(); got == nil || *got != want {
			t.Fatalf("batch message %d: Index %v, want %d", i, got, want)
		}
		if got := m.BrokerPublishTime(); got == nil || !got.Equal(time.UnixMilli(1_700_000_000_123)) {
			t.Fatalf("BrokerPublishTime %v", got)
		}
	}
	single := newMessage(&consumer.Message{ID: messageid.New(7, 2, -1, -1, 0), Meta: &proto.MessageMetadata{}, BrokerMeta: bm}, nil)
	if got := single.Index(); got == nil || *got != 41 {
		t.Fatalf("single message: Index %v", got)
	}
	none := newMessage(&consumer.Message{ID: messageid.New(7, 3, -1, -1, 0), Meta: &proto.MessageMetadata{}}, nil)
	if none.Index() != nil || none.BrokerPublishTime() != nil {
		t.Fatal("a message without broker entry metadata has an index or broker publish time")
	}
	onlyTime := newMessage(&consumer.Message{ID: messageid.New(7, 3, -1, -1, 0), Meta: &proto.MessageMetadata{},
		BrokerMeta: &proto.BrokerEntryMetadata{BrokerTimestamp: gproto.Uint64(5)}}, nil)
	if onlyTime.Index() != nil || onlyTime.BrokerPublishTime() == nil {
		t.Fatal("a broker timestamp without an index")
	}
}
