package brokerstub

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/websocket"
)

// wsTestClient is a minimal WebSocket client for the tests: it masks
// what it sends, as RFC 6455 requires of clients.
type wsTestClient struct {
	t  testing.TB
	nc net.Conn
	br *bufio.Reader
}

// dialWSTest opens path (with its query) on the broker's web service; it
// returns the client, or the HTTP status and body of a refused upgrade.
func dialWSTest(t testing.TB, b *Broker, path string, header http.Header) (*wsTestClient, int, string) {
	t.Helper()
	addr := strings.TrimPrefix(b.WebServiceURL(), "http://")
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	var hs strings.Builder
	fmt.Fprintf(&hs, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n", path, addr)
	for k, vs := range header {
		for _, v := range vs {
			fmt.Fprintf(&hs, "%s: %s\r\n", k, v)
		}
	}
	hs.WriteString("\r\n")
	if _, err := io.WriteString(nc, hs.String()); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("handshake answer: %v", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(resp.Body)
		return nil, resp.StatusCode, string(body)
	}
	return &wsTestClient{t: t, nc: nc, br: br}, resp.StatusCode, ""
}

// sendJSON writes v as a text message.
func (c *wsTestClient) sendJSON(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendFrame(true, websocket.OpText, b)
}

func (c *wsTestClient) sendFrame(fin bool, op byte, p []byte) {
	c.t.Helper()
	if _, err := c.nc.Write(websocket.AppendClientFrame(nil, fin, op, [4]byte{9, 8, 7, 6}, p)); err != nil {
		c.t.Fatalf("ws write: %v", err)
	}
}

// read returns the next frame from the server.
func (c *wsTestClient) read() (byte, []byte, error) {
	_ = c.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	var h [2]byte
	if _, err := io.ReadFull(c.br, h[:]); err != nil {
		return 0, nil, err
	}
	n := uint64(h[1] & 0x7F)
	switch n {
	case 126:
		var l [2]byte
		if _, err := io.ReadFull(c.br, l[:]); err != nil {
			return 0, nil, err
		}
		n = uint64(binary.BigEndian.Uint16(l[:]))
	case 127:
		var l [8]byte
		if _, err := io.ReadFull(c.br, l[:]); err != nil {
			return 0, nil, err
		}
		n = binary.BigEndian.Uint64(l[:])
	}
	if n > 16<<20 {
		return 0, nil, fmt.Errorf("frame of %d bytes", n)
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(c.br, p); err != nil {
		return 0, nil, err
	}
	return h[0] & 0x0F, p, nil
}

// readJSON reads the next text message into v.
func (c *wsTestClient) readJSON(v any) {
	c.t.Helper()
	op, p, err := c.read()
	if err != nil {
		c.t.Fatalf("ws read: %v", err)
	}
	if op != websocket.OpText {
		c.t.Fatalf("ws read: opcode %d payload %q, want text", op, p)
	}
	if err := json.Unmarshal(p, v); err != nil {
		c.t.Fatalf("ws read %q: %v", p, err)
	}
}

// readClose reads until the close frame and returns its code.
func (c *wsTestClient) readClose() int {
	c.t.Helper()
	for {
		op, p, err := c.read()
		if err != nil {
			c.t.Fatalf("ws read: %v (want a close frame)", err)
		}
		if op == websocket.OpClose {
			if len(p) < 2 {
				return websocket.CloseNoStatus
			}
			return int(binary.BigEndian.Uint16(p))
		}
	}
}
