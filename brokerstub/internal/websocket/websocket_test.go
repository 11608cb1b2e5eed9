package websocket

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

var mask = [4]byte{1, 2, 3, 4}

// pipe returns a server Conn and the client's end.
func pipe(t *testing.T, max int) (*Conn, net.Conn) {
	t.Helper()
	s, c := net.Pipe()
	t.Cleanup(func() { _ = s.Close(); _ = c.Close() })
	return NewConn(s, nil, max), c
}

// readServerFrame reads one unmasked server frame.
func readServerFrame(t *testing.T, r io.Reader) (byte, []byte) {
	t.Helper()
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		t.Fatalf("read frame: %v", err)
	}
	n := int(h[1] & 0x7F)
	switch n {
	case 126:
		var l [2]byte
		_, _ = io.ReadFull(r, l[:])
		n = int(binary.BigEndian.Uint16(l[:]))
	case 127:
		var l [8]byte
		_, _ = io.ReadFull(r, l[:])
		n = int(binary.BigEndian.Uint64(l[:]))
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		t.Fatalf("read payload: %v", err)
	}
	return h[0] & 0x0F, p
}

func TestHandshakeAndEcho(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := Upgrade(w, r, 1<<10)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		op, msg, err := c.ReadMessage()
		if err == nil && op == OpText {
			_ = c.WriteText(append([]byte("echo:"), msg...))
		}
		_, _, _ = c.ReadMessage() // the close
	}))
	defer srv.Close()
	nc, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	key := "dGhlIHNhbXBsZSBub25jZQ==" // RFC 6455's example
	_, _ = io.WriteString(nc, "GET /x HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"+
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: "+key+"\r\n\r\n")
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 101 || resp.Header.Get("Sec-WebSocket-Accept") != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("handshake answer %d %q", resp.StatusCode, resp.Header.Get("Sec-WebSocket-Accept"))
	}
	_, _ = nc.Write(AppendClientFrame(nil, true, OpText, mask, []byte("hi")))
	if op, p := readServerFrame(t, br); op != OpText || string(p) != "echo:hi" {
		t.Fatalf("got %d %q", op, p)
	}
	_, _ = nc.Write(AppendClientFrame(nil, true, OpClose, mask, []byte{0x03, 0xE8}))
	if op, p := readServerFrame(t, br); op != OpClose || binary.BigEndian.Uint16(p) != CloseNormal {
		t.Fatalf("close answer %d %v", op, p)
	}
}

func TestCheckHandshakeRefuses(t *testing.T) {
	for name, mod := range map[string]func(*http.Request){
		"no upgrade":  func(r *http.Request) { r.Header.Del("Upgrade") },
		"version 8":   func(r *http.Request) { r.Header.Set("Sec-WebSocket-Version", "8") },
		"short key":   func(r *http.Request) { r.Header.Set("Sec-WebSocket-Key", "YWJj") },
		"method POST": func(r *http.Request) { r.Method = http.MethodPost },
	} {
		r := httptest.NewRequest(http.MethodGet, "/ws", nil)
		r.Header.Set("Upgrade", "websocket")
		r.Header.Set("Connection", "Upgrade")
		r.Header.Set("Sec-WebSocket-Version", "13")
		r.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		if _, err := CheckHandshake(r); err != nil {
			t.Fatalf("valid handshake refused: %v", err)
		}
		mod(r)
		if _, err := CheckHandshake(r); !errors.Is(err, ErrHandshake) {
			t.Errorf("%s: err = %v, want ErrHandshake", name, err)
		}
	}
}

func TestFragmentsAndPingBetweenThem(t *testing.T) {
	c, cl := pipe(t, 1<<10)
	go func() {
		var b []byte
		b = AppendClientFrame(b, false, OpText, mask, []byte("hel"))
		b = AppendClientFrame(b, true, OpPing, mask, []byte("p"))
		b = AppendClientFrame(b, true, OpContinuation, mask, []byte("lo"))
		_, _ = cl.Write(b)
	}()
	pong := make(chan []byte, 1)
	go func() {
		op, p := readServerFrame(t, cl)
		if op == OpPong {
			pong <- p
		}
		close(pong)
	}()
	op, msg, err := c.ReadMessage()
	if err != nil || op != OpText || string(msg) != "hello" {
		t.Fatalf("ReadMessage = %d %q %v", op, msg, err)
	}
	if p := <-pong; string(p) != "p" {
		t.Fatalf("pong payload %q", p)
	}
}

// closeCode reads the server's close frame.
func closeCode(t *testing.T, cl net.Conn) int {
	t.Helper()
	op, p := readServerFrame(t, cl)
	if op != OpClose || len(p) < 2 {
		t.Fatalf("want a close frame, got %d %v", op, p)
	}
	return int(binary.BigEndian.Uint16(p))
}

func TestRefusedFramesCloseWithTheirCode(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 40)
	for _, tc := range []struct {
		name  string
		frame []byte
		code  int
		err   error
	}{
		{"unmasked", []byte{0x81, 0x02, 'h', 'i'}, CloseProtocolError, ErrProtocol},
		{"too big in one frame", AppendClientFrame(nil, true, OpText, mask, big), CloseMessageTooBig, ErrTooBig},
		{"too big in fragments", append(AppendClientFrame(nil, false, OpText, mask, big[:20]),
			AppendClientFrame(nil, true, OpContinuation, mask, big[:20])...), CloseMessageTooBig, ErrTooBig},
		{"reserved bit", []byte{0xC1, 0x80, 0, 0, 0, 0}, CloseProtocolError, ErrProtocol},
		{"bad opcode", []byte{0x83, 0x80, 0, 0, 0, 0}, CloseProtocolError, ErrProtocol},
		{"continuation first", AppendClientFrame(nil, true, OpContinuation, mask, nil), CloseProtocolError, ErrProtocol},
		{"fragmented ping", AppendClientFrame(nil, false, OpPing, mask, nil), CloseProtocolError, ErrProtocol},
		{"bad utf8", AppendClientFrame(nil, true, OpText, mask, []byte{0xff}), CloseInvalidPayload, errInvalidUTF8},
		{"huge claimed length", []byte{0x82, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}, CloseMessageTooBig, ErrTooBig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, cl := pipe(t, 32)
			go func() { _, _ = cl.Write(tc.frame) }()
			got := make(chan int, 1)
			go func() { got <- closeCode(t, cl) }()
			_, _, err := c.ReadMessage()
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if code := <-got; code != tc.code {
				t.Fatalf("close code %d, want %d", code, tc.code)
			}
		})
	}
}

func TestPeerCloseIsAnswered(t *testing.T) {
	c, cl := pipe(t, 32)
	go func() {
		_, _ = cl.Write(AppendClientFrame(nil, true, OpClose, mask, append([]byte{0x0F, 0xA0}, "bye"...)))
	}()
	got := make(chan int, 1)
	go func() { got <- closeCode(t, cl) }()
	_, _, err := c.ReadMessage()
	var ce *CloseError
	if !errors.As(err, &ce) || ce.Code != 4000 || ce.Reason != "bye" {
		t.Fatalf("err = %v", err)
	}
	if code := <-got; code != 4000 {
		t.Fatalf("answered %d", code)
	}
	if err := c.WriteText([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after close: %v", err)
	}
}
