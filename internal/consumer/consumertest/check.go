package consumertest

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/messageid"
)

// Noise returns n incompressible bytes, the same for the same seed. It fills
// them with ChaCha8 in one call, which the race detector instruments once
// rather than per byte (a MiB took about a second under -race).
func Noise(n int, seed uint64) []byte {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	b := make([]byte, n)
	_, _ = rand.NewChaCha8(key).Read(b)
	return b
}

// SameBytes fails the test when got differs from want.
func SameBytes(t testing.TB, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Fatalf("payload differs: %d bytes, want %d", len(got), len(want))
	}
}

// WaitCursor waits (up to 10 s) until the subscription's cursor on the stub
// satisfies ok, and returns it.
func WaitCursor(t testing.TB, b *brokerstub.Broker, topic, sub string, ok func(brokerstub.CursorState) bool) brokerstub.CursorState {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		cur, _, err := b.Cursor(topic, sub)
		if err == nil && ok(cur) {
			return cur
		}
		if time.Now().After(deadline) {
			t.Fatalf("cursor of %s on %s: %+v (err %v)", sub, topic, cur, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// AckedThrough reports a cursor with everything up to last acknowledged and
// nothing partly acknowledged.
func AckedThrough(last messageid.MessageID) func(brokerstub.CursorState) bool {
	l := messageid.LastChunk(last)
	return func(c brokerstub.CursorState) bool {
		return c.MarkDelete == brokerstub.Position{Ledger: l.LedgerID(), Entry: l.EntryID()} &&
			len(c.Ranges) == 0 && len(c.BatchAcks) == 0
	}
}
