package brokerstub

import "testing"

// BenchmarkStart measures starting and closing an in-process broker.
func BenchmarkStart(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		br, err := Start(Options{})
		if err != nil {
			b.Fatal(err)
		}
		_ = br.Close()
	}
}
