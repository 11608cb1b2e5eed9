package chunk

import (
	"bytes"
	"testing"
)

// Options.NewBuffer gives the buffer a chunked message is assembled in
// (with garbage in it: the chunks overwrite it whole); a buffer of the
// wrong length is not used.
func TestNewBufferHoldsTheAssembledMessage(t *testing.T) {
	for _, wrong := range []bool{false, true} {
		var given []byte
		a := NewAssembler(Options{NewBuffer: func(n int) []byte {
			if wrong {
				n++
			}
			given = bytes.Repeat([]byte{0xee}, n)
			return given
		}})
		payload := pattern(10_000, 3)
		var msg *Message
		for _, c := range incoming(t, split(t, "p", 1, payload, 3_000), 1) {
			m, _, err := a.Add(c)
			if err != nil {
				t.Fatal(err)
			}
			if m != nil {
				msg = m
			}
		}
		if msg == nil || !bytes.Equal(msg.Payload, payload) {
			t.Fatalf("wrong %v: message %v", wrong, msg != nil)
		}
		if shared := &msg.Payload[0] == &given[0]; shared == wrong {
			t.Fatalf("wrong length %v: the given buffer used %v", wrong, shared)
		}
	}
}
