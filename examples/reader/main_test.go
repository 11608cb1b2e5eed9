package main

import "testing"

// TestReaderExample runs the example end to end on its in-process stub.
func TestReaderExample(t *testing.T) {
	if err := run(); err != nil {
		t.Fatal(err)
	}
}
