package integration

import (
	"testing"

	// Linking the official client registers its PulsarApi.proto descriptors.
	_ "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	pb "github.com/pulsargo/sdk/internal/proto"
)

// TestProtoMatchesOfficialClient compares our protocol definition with the
// one compiled into the official Go client, message by message and field by
// field: every field we define must have upstream's number, kind,
// cardinality, default and (for messages and enums) target type name, and
// every enum value must carry upstream's number.
func TestProtoMatchesOfficialClient(t *testing.T) {
	ours := pb.File_pulsar_proto
	theirs, err := protoregistry.GlobalFiles.FindFileByPath("PulsarApi.proto")
	require.NoError(t, err, "official client's proto not registered")

	checkEnums(t, ours.Enums(), theirs.Enums(), "")
	msgs := ours.Messages()
	require.Greater(t, msgs.Len(), 50)
	for i := 0; i < msgs.Len(); i++ {
		checkMessage(t, msgs.Get(i), theirs.Messages().ByName(msgs.Get(i).Name()))
	}
}

func checkMessage(t *testing.T, ours, theirs protoreflect.MessageDescriptor) {
	t.Helper()
	if !assert.NotNil(t, theirs, "message %s has no upstream counterpart", ours.FullName()) {
		return
	}
	fields := ours.Fields()
	for i := 0; i < fields.Len(); i++ {
		f := fields.Get(i)
		u := theirs.Fields().ByNumber(f.Number())
		if !assert.NotNil(t, u, "%s: field %d (%s) not upstream", ours.Name(), f.Number(), f.Name()) {
			continue
		}
		where := string(ours.Name()) + "." + string(f.Name())
		assert.Equal(t, u.Kind(), f.Kind(), where)
		assert.Equal(t, u.Cardinality(), f.Cardinality(), where)
		assert.Equal(t, u.HasDefault(), f.HasDefault(), where)
		if u.HasDefault() {
			assert.Equal(t, u.Default().Interface(), f.Default().Interface(), where)
		}
		if f.Message() != nil {
			assert.Equal(t, u.Message().Name(), f.Message().Name(), where)
		}
		if f.Enum() != nil {
			assert.Equal(t, u.Enum().Name(), f.Enum().Name(), where)
		}
	}
	checkEnums(t, ours.Enums(), theirs.Enums(), string(ours.Name())+".")
	nested := ours.Messages()
	for i := 0; i < nested.Len(); i++ {
		checkMessage(t, nested.Get(i), theirs.Messages().ByName(nested.Get(i).Name()))
	}
}

func checkEnums(t *testing.T, ours, theirs protoreflect.EnumDescriptors, prefix string) {
	t.Helper()
	for i := 0; i < ours.Len(); i++ {
		e := ours.Get(i)
		u := theirs.ByName(e.Name())
		if !assert.NotNil(t, u, "enum %s%s not upstream", prefix, e.Name()) {
			continue
		}
		assert.Equal(t, u.Values().Len(), e.Values().Len(), "enum %s%s value count", prefix, e.Name())
		for j := 0; j < e.Values().Len(); j++ {
			v := e.Values().Get(j)
			uv := u.Values().ByName(v.Name())
			if assert.NotNil(t, uv, "enum value %s%s.%s", prefix, e.Name(), v.Name()) {
				assert.Equal(t, uv.Number(), v.Number(), "enum value %s%s.%s", prefix, e.Name(), v.Name())
			}
		}
	}
}
