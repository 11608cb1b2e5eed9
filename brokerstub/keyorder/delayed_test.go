package keyorder

import (
	"errors"
	"testing"
)

// TestDelayedExemptFromFirstDeliveryOrder: a delayed message may come
// after newer messages of its key, and newer messages may come after it,
// without breaking rule (a); rule (c) still holds for it.
func TestDelayedExemptFromFirstDeliveryOrder(t *testing.T) {
	id := func(e int64) ID { return ID{Ledger: 1, Entry: e, Batch: -1} }
	var c Checker
	mustOK := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	mustOK(c.Received("a", "k", id(2)))
	mustOK(c.Received("a", "k", id(3)))
	mustOK(c.ReceivedDelayed("a", "k", id(1)))
	mustOK(c.Received("a", "k", id(4)))
	// The delayed one did not move the order mark: 4 was the greatest.
	var v *Violation
	if err := c.Received("a", "k", id(0)); !errors.As(err, &v) || v.Rule != FirstDeliveryOrder {
		t.Fatalf("want rule (a), got %v", err)
	}

	var d Checker
	mustOK(d.Received("a", "k", id(2)))
	if err := d.ReceivedDelayed("b", "k", id(1)); !errors.As(err, &v) || v.Rule != OneConsumerPerKey {
		t.Fatalf("a delayed message still obeys rule (c), got %v", err)
	}
}
