package wire

import (
	"bytes"
	"testing"

	protobuf "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// AppendSingleMessage encodes what AppendBatchEntry encodes for the same
// fields, byte for byte (protobuf marshals in field order too), and
// SplitBatch reads it back.
func TestAppendSingleMessageMatchesAppendBatchEntry(t *testing.T) {
	cases := []SingleMessage{
		{},
		{SequenceID: 0, HasSequenceID: true},
		{SequenceID: 1 << 40, HasSequenceID: true, PartitionKey: "key", EventTime: 1_700_000_000_000, OrderingKey: []byte("ok")},
		{Properties: map[string]string{"a": "1"}, HasSequenceID: true, SequenceID: 7},
		{Properties: map[string]string{"": ""}, PartitionKey: "k"},
	}
	for i, sm := range cases {
		body := bytes.Repeat([]byte{byte(i)}, 300*i)
		smm := &proto.SingleMessageMetadata{PartitionKey: nonEmpty(sm.PartitionKey), OrderingKey: sm.OrderingKey}
		for k, v := range sm.Properties {
			smm.Properties = append(smm.Properties, &proto.KeyValue{Key: protobuf.String(k), Value: protobuf.String(v)})
		}
		if sm.EventTime != 0 {
			smm.EventTime = protobuf.Uint64(sm.EventTime)
		}
		if sm.HasSequenceID {
			smm.SequenceId = protobuf.Uint64(sm.SequenceID)
		}
		want, err := AppendBatchEntry([]byte("prefix"), smm, body)
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendSingleMessage([]byte("prefix"), &sm, body)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("case %d:\n got %x\nwant %x", i, got, want)
		}
		err = SplitBatch(got[len("prefix"):], 1, func(_ int, m *proto.SingleMessageMetadata, b []byte) error {
			if !protobuf.Equal(m, smm) || !bytes.Equal(b, body) {
				t.Errorf("case %d: split %v, %d bytes", i, m, len(b))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func TestAppendSingleMessageAllocatesNothingWithRoom(t *testing.T) {
	sm := &SingleMessage{HasSequenceID: true, SequenceID: 42, PartitionKey: "key"}
	body := make([]byte, 1024)
	buf := make([]byte, 0, 64<<10)
	allocs := testing.AllocsPerRun(100, func() {
		var err error
		if buf, err = AppendSingleMessage(buf[:0], sm, body); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per message", allocs)
	}
}
