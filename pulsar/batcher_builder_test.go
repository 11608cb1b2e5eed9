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

// TestUnknownBatcherBuilderRefusedByProducer: as the official producer, an
// unknown BatcherBuilderType fails CreateProducer when the producer would
// batch, and is ignored with DisableBatching.
func TestUnknownBatcherBuilderRefusedByProducer(t *testing.T) {
	v := newCSEnv(t)
	_, err := v.c.CreateProducer(ProducerOptions{Topic: "batcher-unknown", BatcherBuilderType: BatcherBuilderType(7)})
	var pe *Error
	if !errors.As(err, &pe) || pe.Result() != InvalidBatchBuilderType {
		t.Fatalf("CreateProducer: %v; want an *Error with InvalidBatchBuilderType", err)
	}
	p, err := v.c.CreateProducer(ProducerOptions{Topic: "batcher-unknown", BatcherBuilderType: BatcherBuilderType(7), DisableBatching: true})
	if err != nil {
		t.Fatalf("without batching: %v", err)
	}
	p.Close()
}
