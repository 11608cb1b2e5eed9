package websocket

import (
	"bufio"
	"bytes"
	"net"
	"testing"
)

// FuzzParseHeader: no panic; a header accepted is consistent with the
// rules (masked, length within the limit, control frames small and final).
func FuzzParseHeader(f *testing.F) {
	f.Add(AppendClientFrame(nil, true, OpText, mask, []byte("hello")))
	f.Add(AppendClientFrame(nil, false, OpBinary, mask, make([]byte, 300)))
	f.Add([]byte{0x82, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, n, err := ParseHeader(b, 1<<16)
		if err != nil || n == 0 {
			return
		}
		if n > len(b) || n > 14 || !h.Masked || h.Length > 1<<16 {
			t.Fatalf("accepted %+v size %d of %d bytes", h, n, len(b))
		}
		if h.Opcode >= OpClose && (!h.Fin || h.Length > maxControlPayload) {
			t.Fatalf("accepted control frame %+v", h)
		}
	})
}

// FuzzReadMessage: any byte stream ends in a message or an error, with
// no panic and no message over the limit.
func FuzzReadMessage(f *testing.F) {
	f.Add(append(AppendClientFrame(nil, false, OpText, mask, []byte("he")),
		AppendClientFrame(nil, true, OpContinuation, mask, []byte("llo"))...))
	f.Add(AppendClientFrame(nil, true, OpPing, mask, []byte("p")))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, c := net.Pipe()
		defer c.Close()
		go func() { _, _ = bufio.NewReader(c).WriteTo(discard{}) }()
		conn := NewConn(s, bufio.NewReader(bytes.NewReader(b)), 64)
		for range 8 {
			_, msg, err := conn.ReadMessage()
			if err != nil {
				break
			}
			if len(msg) > 64 {
				t.Fatalf("message of %d bytes over the limit", len(msg))
			}
		}
		_ = s.Close()
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
