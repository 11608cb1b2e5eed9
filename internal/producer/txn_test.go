package producer

import (
	"bytes"
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/internal/api"
)

// idTxn is a transaction id (the engine knows nothing else of one).
type idTxn = api.TxnID

// sendTxn returns the txn id of a frame's SEND (nil for none) and checks
// that the metadata carries the same.
func sendTxn(t *testing.T, f sent) *api.TxnID {
	t.Helper()
	s, m := f.send, f.meta
	if (s.TxnidMostBits == nil) != (m.TxnidMostBits == nil) || s.GetTxnidMostBits() != m.GetTxnidMostBits() || s.GetTxnidLeastBits() != m.GetTxnidLeastBits() {
		t.Fatalf("SEND txn (%v,%v), metadata txn (%v,%v)", s.TxnidMostBits, s.TxnidLeastBits, m.TxnidMostBits, m.TxnidLeastBits)
	}
	if s.TxnidMostBits == nil {
		return nil
	}
	return &api.TxnID{MostSigBits: s.GetTxnidMostBits(), LeastSigBits: s.GetTxnidLeastBits()}
}

func TestBatchHoldsOneTransaction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc, clk := &fakeConn{maxMsg: 1 << 20}, newFakeClock()
		p := newTestProducer(t, fc, clk, Options{BatchMaxMessages: 100, BatchMaxDelay: time.Second})
		a, b := idTxn{MostSigBits: 1, LeastSigBits: 7}, idTxn{MostSigBits: 1, LeastSigBits: 8}
		// none, a, a, b, none, none: four batches.
		for _, tx := range []*api.TxnID{nil, &a, &a, &b, nil, nil} {
			cb, _ := collect()
			p.SendAsync(context.Background(), &Message{Payload: []byte("x"), Txn: tx}, cb)
		}
		clk.Advance(time.Second)
		frames := fc.take()
		want := []struct {
			txn *api.TxnID
			n   int32
		}{{nil, 1}, {&api.TxnID{MostSigBits: 1, LeastSigBits: 7}, 2}, {&api.TxnID{MostSigBits: 1, LeastSigBits: 8}, 1}, {nil, 2}}
		if len(frames) != len(want) {
			t.Fatalf("%d frames, want %d", len(frames), len(want))
		}
		for i, f := range frames {
			got := sendTxn(t, f)
			if !sameTxn(got, want[i].txn) || f.send.GetNumMessages() != want[i].n {
				t.Fatalf("frame %d: txn %v with %d messages, want %v with %d", i, got, f.send.GetNumMessages(), want[i].txn, want[i].n)
			}
		}
	})
}

func TestEveryChunkCarriesTheTransaction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc, clk := &fakeConn{maxMsg: 1000}, newFakeClock()
		p := newTestProducer(t, fc, clk, Options{DisableBatching: true, EnableChunking: true})
		cb, _ := collect()
		tx := idTxn{MostSigBits: 3, LeastSigBits: 42}
		p.SendAsync(context.Background(), &Message{Payload: bytes.Repeat([]byte("c"), 4500), Txn: &tx}, cb)
		frames := fc.take()
		if len(frames) < 2 {
			t.Fatalf("%d frames: not chunked", len(frames))
		}
		for i, f := range frames {
			if got := sendTxn(t, f); got == nil || *got != api.TxnID(tx) || !f.send.GetIsChunk() {
				t.Fatalf("chunk %d: txn %v, is_chunk %v", i, got, f.send.GetIsChunk())
			}
		}
	})
}
