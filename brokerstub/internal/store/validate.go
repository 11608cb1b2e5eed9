package store

import (
	"fmt"
	"math"
)

// Argument checks shared by the implementations.

// checkName returns ErrInvalidArgument for an empty name.
func checkName(kind, name string) error {
	if name == "" {
		return errorf(ErrInvalidArgument, "empty %s name", kind)
	}
	return nil
}

// checkEntry validates the topic name and the position of e.
func checkEntry(topic string, e StoredEntry) error {
	if err := checkName("topic", topic); err != nil {
		return err
	}
	if e.Ledger < 0 || e.Entry < 0 {
		return errorf(ErrInvalidArgument, "negative position %d:%d", e.Ledger, e.Entry)
	}
	return nil
}

// after reports whether position (l1, e1) is strictly after (l2, e2).
func after(l1, e1, l2, e2 int64) bool {
	return l1 > l2 || (l1 == l2 && e1 > e2)
}

// checkCursorNames validates a topic and a subscription name.
func checkCursorNames(topic, sub string) error {
	if err := checkName("topic", topic); err != nil {
		return err
	}
	return checkName("subscription", sub)
}

// checkPartitions validates the arguments of SetPartitions.
func checkPartitions(topic string, n int) error {
	if err := checkName("topic", topic); err != nil {
		return err
	}
	if n < 0 || n > math.MaxInt32 {
		return errorf(ErrInvalidArgument, "partition count %d", n)
	}
	return nil
}

// nextLedgerID returns the ledger id that follows last, the highest id
// returned or stored for topic so far (0 if none).
func nextLedgerID(topic string, last int64) (int64, error) {
	if last == math.MaxInt64 {
		return 0, errorf(ErrInvalidArgument, "topic %q: ledger ids exhausted", topic)
	}
	return max(last+1, FirstLedgerID), nil
}

// errorf returns an error that wraps sentinel, with a formatted detail.
func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}
