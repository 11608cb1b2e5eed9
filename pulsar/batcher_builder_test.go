package pulsar

import (
	"errors"
	"testing"
)

func TestGetBatcherBuilderProvider(t *testing.T) {
	for _, typ := range []BatcherBuilderType{DefaultBatchBuilder, KeyBasedBatchBuilder} {
		p, err := GetBatcherBuilderProvider(typ)
		if err != nil || p == nil || p() != typ {
			t.Fatalf("GetBatcherBuilderProvider(%d) = %v, %v", typ, p, err)
		}
	}
	p, err := GetBatcherBuilderProvider(BatcherBuilderType(7))
	var pe *Error
	if p != nil || !errors.As(err, &pe) || pe.Result() != InvalidBatchBuilderType {
		t.Fatalf("unknown type: %v, %v; want an *Error with InvalidBatchBuilderType", p, err)
	}
}
