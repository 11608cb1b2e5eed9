package chunk

import (
	"bytes"
	"slices"
	"testing"

	"github.com/pulsargo/sdk/messageid"
)

func TestAssembleInOrder(t *testing.T) {
	payload := pattern(1000, 3)
	chunks := incoming(t, split(t, "p", 5, payload, 300), 10)
	a := NewAssembler(Options{})
	for _, c := range chunks[:len(chunks)-1] {
		addQuiet(t, a, c)
	}
	wantPending(t, a, 1, 1000)
	msg, ds, err := a.Add(chunks[len(chunks)-1])
	if err != nil || len(ds) != 0 || msg == nil {
		t.Fatalf("last chunk: msg=%v ds=%v err=%v", msg, ds, err)
	}
	if msg.UUID != "p-5" || !bytes.Equal(msg.Payload, payload) || cap(msg.Payload) != len(payload) {
		t.Errorf("message uuid %q, %d bytes (cap %d)", msg.UUID, len(msg.Payload), cap(msg.Payload))
	}
	want := []messageid.ID{id(10), id(11), id(12), id(13)}
	if !slices.Equal(msg.ChunkIDs, want) {
		t.Errorf("ChunkIDs = %v, want %v", msg.ChunkIDs, want)
	}
	if msg.ID.FirstChunkID() != id(10) || msg.ID.LastChunkID() != id(13) {
		t.Errorf("ID = %v", msg.ID)
	}
	wantPending(t, a, 0, 0)
}

func TestAssembleCopiesPayload(t *testing.T) {
	chunks := incoming(t, split(t, "p", 1, pattern(20, 0), 10), 1)
	a := NewAssembler(Options{})
	addQuiet(t, a, chunks[0])
	for i := range chunks[0].Payload { // the caller reuses its buffer
		chunks[0].Payload[i] = 0xFF
	}
	msg, _, _ := a.Add(chunks[1])
	if msg == nil || bytes.Equal(msg.Payload[:10], chunks[0].Payload) {
		t.Fatal("message shares memory with a chunk's payload")
	}
}

func TestAssembleInterleaved(t *testing.T) {
	pa, pb, pc := pattern(50, 1), pattern(35, 2), pattern(20, 3)
	ca := incoming(t, split(t, "a", 1, pa, 10), 100)
	cb := incoming(t, split(t, "b", 1, pb, 10), 200)
	cc := incoming(t, split(t, "c", 1, pc, 10), 300)
	order := []Incoming{ca[0], cb[0], ca[1], cc[0], cb[1], ca[2], cb[2], cc[1], ca[3], cb[3], ca[4]}
	a := NewAssembler(Options{})
	got := map[string][]byte{}
	for _, c := range order {
		msg, ds, err := a.Add(c)
		if err != nil || len(ds) != 0 {
			t.Fatalf("Add: ds=%v err=%v", ds, err)
		}
		if msg != nil {
			got[msg.UUID] = msg.Payload
		}
	}
	if !bytes.Equal(got["a-1"], pa) || !bytes.Equal(got["b-1"], pb) || !bytes.Equal(got["c-1"], pc) {
		t.Errorf("messages: %d %d %d bytes", len(got["a-1"]), len(got["b-1"]), len(got["c-1"]))
	}
	wantPending(t, a, 0, 0)
}

func TestAssembleSingleChunk(t *testing.T) {
	a := NewAssembler(Options{MaxPendingMessages: 1})
	addQuiet(t, a, in("other", 0, 2, 2, []byte{1}, 1))
	// A one-chunk message completes at once, without evicting anything.
	msg, ds, err := a.Add(in("one", 0, 1, 3, []byte{7, 8, 9}, 2))
	if err != nil || len(ds) != 0 || msg == nil || !bytes.Equal(msg.Payload, []byte{7, 8, 9}) {
		t.Fatalf("msg=%v ds=%v err=%v", msg, ds, err)
	}
	if msg.ID.FirstChunkID() != id(2) || msg.ID.LastChunkID() != id(2) || !slices.Equal(msg.ChunkIDs, []messageid.ID{id(2)}) {
		t.Errorf("ids: %v %v", msg.ID, msg.ChunkIDs)
	}
	wantPending(t, a, 1, 2)
}

func TestAssembleEmptyMessage(t *testing.T) {
	chunks := incoming(t, split(t, "p", 1, nil, 10), 1)
	msg, ds, err := NewAssembler(Options{}).Add(chunks[0])
	if err != nil || len(ds) != 0 || msg == nil || msg.Payload == nil || len(msg.Payload) != 0 {
		t.Fatalf("msg=%+v ds=%v err=%v", msg, ds, err)
	}
}

func TestAssembleEmptyChunks(t *testing.T) {
	// Producers never send empty chunks, but they add up, so they are fine.
	a := NewAssembler(Options{})
	addQuiet(t, a, in("p", 0, 3, 4, []byte{1, 2}, 1))
	addQuiet(t, a, in("p", 1, 3, 4, nil, 2))
	msg, _, err := a.Add(in("p", 2, 3, 4, []byte{3, 4}, 3))
	if err != nil || msg == nil || !bytes.Equal(msg.Payload, []byte{1, 2, 3, 4}) {
		t.Fatalf("msg=%v err=%v", msg, err)
	}
}

func TestAssembleUUIDReusedAfterCompletion(t *testing.T) {
	a := NewAssembler(Options{})
	for round := range 2 {
		e := int64(round * 10)
		addQuiet(t, a, in("p", 0, 2, 2, []byte{byte(round)}, e))
		msg, _, err := a.Add(in("p", 1, 2, 2, []byte{9}, e+1))
		if err != nil || msg == nil || msg.Payload[0] != byte(round) {
			t.Fatalf("round %d: msg=%v err=%v", round, msg, err)
		}
	}
}

func TestOptionsDefaults(t *testing.T) {
	o := NewAssembler(Options{}).Options()
	if o.MaxPendingMessages != 100 || o.MaxPendingBytes != 256<<20 || o.MaxMessageSize != 256<<20 ||
		o.ExpireAfter != DefaultExpireAfter || o.Now == nil {
		t.Errorf("defaults: %+v", o)
	}
	o = NewAssembler(Options{MaxPendingMessages: -1, MaxPendingBytes: 1000, ExpireAfter: -1}).Options()
	if o.MaxPendingMessages != 100 || o.MaxPendingBytes != 1000 || o.MaxMessageSize != 1000 || o.ExpireAfter != -1 {
		t.Errorf("options: %+v", o)
	}
}
