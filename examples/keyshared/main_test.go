package main

import "testing"

// TestKeySharedExample runs the example: its own checker fails it on any
// ordering violation.
func TestKeySharedExample(t *testing.T) {
	if err := run(); err != nil {
		t.Fatal(err)
	}
}
