package consumer

import (
	"testing"

	"github.com/pulsargo/sdk/messageid"
)

func TestRecentIDsBoundAndKeys(t *testing.T) {
	r := recentIDs{max: 2}
	a, b, c := messageid.New(1, 1, -1, 0, 0), messageid.New(1, 2, -1, 0, 0), messageid.New(1, 3, -1, 0, 0)
	chunk := messageid.NewChunk(messageid.New(1, 4, -1, 0, 0), messageid.New(1, 6, -1, 0, 0))
	r.add(a)
	r.add(b)
	r.add(b) // once only
	r.add(c)
	if r.has(a) || !r.has(b) || !r.has(c) {
		t.Fatalf("bound 2: has a %v b %v c %v, want the oldest forgotten", r.has(a), r.has(b), r.has(c))
	}
	r.add(chunk)
	if !r.has(chunk) || r.has(messageid.New(1, 6, -1, 0, 0)) {
		t.Fatal("a chunk id is known as itself, not as its last chunk")
	}
	if back, _ := messageid.Deserialize(chunk.Serialize()); !r.has(back) {
		t.Fatal("a deserialized chunk id is not known")
	}
	if r.has(messageid.New(1, 3, -1, 1, 0)) {
		t.Fatal("an id of another partition is known")
	}
	var off recentIDs
	off.add(a)
	if off.has(a) {
		t.Fatal("max 0 remembers")
	}
}
