package txn

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestIDOf(t *testing.T) {
	most, least := uint64(1), uint64(7)
	if id, ok := IDOf(&most, &least); !ok || id != (ID{1, 7}) || id.String() != "(1,7)" {
		t.Errorf("IDOf = %v %v", id, ok)
	}
	if id, ok := IDOf(nil, &least); !ok || id != (ID{0, 7}) {
		t.Errorf("IDOf(nil, 7) = %v %v", id, ok)
	}
	if _, ok := IDOf(nil, nil); ok {
		t.Error("no fields is a transaction")
	}
}

func TestErrorText(t *testing.T) {
	if got := ErrorText(fmt.Errorf("tc: %w", ErrDisabled)); got != DisabledMsg {
		t.Errorf("disabled: %q", got)
	}
	if got := ErrorText(ErrConflict); got != ErrConflict.Error() {
		t.Errorf("conflict: %q", got)
	}
	if !errors.Is(fmt.Errorf("x: %w", ErrStatus), ErrStatus) || Aborted.String() != "ABORTED" || Status(9).String() != "UNKNOWN" {
		t.Error("status")
	}
}

func TestAckSets(t *testing.T) {
	if got := FullAckSet(66); !slices.Equal(got, []int64{-1, 3}) || Popcount(got, 66) != 66 || Popcount(got, 10) != 10 {
		t.Errorf("FullAckSet(66) = %v", got)
	}
	// A missing word is acknowledged: the and of {..} and {} is zero.
	if got := AndAckSets([]int64{0b1011, -1}, []int64{0b0110}); !slices.Equal(got, []int64{0b0010, 0}) {
		t.Errorf("AndAckSets = %v", got)
	}
	cur := []int64{0b1110} // index 0 acknowledged
	if !BitsAlreadyAcked(cur, []int64{0b1110}, 4) {
		t.Error("acking index 0 again is not seen")
	}
	if BitsAlreadyAcked(cur, []int64{0b1101}, 4) {
		t.Error("acking index 1 reported as a repeat")
	}
	if BitsAlreadyAcked(nil, []int64{0}, 4) || BitsAlreadyAcked(cur, nil, 4) {
		t.Error("a whole-entry ack compared as batch bits")
	}
}
