package txn

import (
	"google.golang.org/protobuf/encoding/protowire"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// Marker types of the entries a topic writes at the end of a transaction
// (Pulsar's MarkerType TXN_COMMIT and TXN_ABORT); they are never
// dispatched.
const (
	MarkerCommit int32 = 21
	MarkerAbort  int32 = 22
)

// Tagged returns the metadata of a transactional SEND with the transaction
// id in it (protobuf fields 22 and 23 appended: a later field wins, so
// metadata that already has them is unchanged in meaning).
func Tagged(rawMeta []byte, id ID) []byte {
	out := make([]byte, 0, len(rawMeta)+22)
	out = append(out, rawMeta...)
	out = protowire.AppendTag(out, 22, protowire.VarintType)
	out = protowire.AppendVarint(out, id.Least)
	out = protowire.AppendTag(out, 23, protowire.VarintType)
	return protowire.AppendVarint(out, id.Most)
}

// Marker is the metadata of the marker entry that ends id on a topic at
// now (Unix ms): a commit or an abort marker, tagged with id.
func Marker(id ID, commit bool, now uint64) ([]byte, error) {
	marker := MarkerAbort
	if commit {
		marker = MarkerCommit
	}
	md := &proto.MessageMetadata{
		ProducerName: gproto.String("brokerstub-txn-buffer"),
		SequenceId:   gproto.Uint64(0),
		PublishTime:  &now,
		MarkerType:   &marker,
	}
	raw, err := gproto.Marshal(md)
	if err != nil {
		return nil, err
	}
	return Tagged(raw, id), nil
}
