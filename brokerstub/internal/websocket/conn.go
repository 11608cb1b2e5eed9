package websocket

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// acceptGUID is RFC 6455's GUID for Sec-WebSocket-Accept.
const acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// ErrHandshake is wrapped by CheckHandshake's errors: the request is not
// a WebSocket opening handshake this server accepts (answer 400).
var ErrHandshake = errors.New("websocket: bad handshake")

// CloseError is returned by ReadMessage once the connection is closed: by
// the peer's close frame (Code is its code, CloseNoStatus without one) or
// by the server after a protocol error.
type CloseError struct {
	Code   int
	Reason string
}

func (e *CloseError) Error() string {
	return fmt.Sprintf("websocket: closed: %d %s", e.Code, e.Reason)
}

// CheckHandshake checks that r is an RFC 6455 opening handshake of
// version 13, and returns its key.
func CheckHandshake(r *http.Request) (string, error) {
	if r.Method != http.MethodGet {
		return "", fmt.Errorf("%w: method %s, want GET", ErrHandshake, r.Method)
	}
	if !headerHasToken(r.Header, "Connection", "upgrade") || !headerHasToken(r.Header, "Upgrade", "websocket") {
		return "", fmt.Errorf("%w: want \"Connection: Upgrade\" and \"Upgrade: websocket\"", ErrHandshake)
	}
	if v := r.Header.Get("Sec-WebSocket-Version"); v != "13" {
		return "", fmt.Errorf("%w: Sec-WebSocket-Version %q, want 13", ErrHandshake, v)
	}
	key := r.Header.Get("Sec-WebSocket-Key")
	if k, err := base64.StdEncoding.DecodeString(key); err != nil || len(k) != 16 {
		return "", fmt.Errorf("%w: Sec-WebSocket-Key is not 16 bytes in base64", ErrHandshake)
	}
	return key, nil
}

func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// AcceptKey is the Sec-WebSocket-Accept value for key.
func AcceptKey(key string) string {
	s := sha1.Sum([]byte(key + acceptGUID))
	return base64.StdEncoding.EncodeToString(s[:])
}

// Conn is a server-side WebSocket connection. One goroutine may read
// (ReadMessage) while others write; writes are serialized.
type Conn struct {
	nc  net.Conn
	br  *bufio.Reader
	max int

	wmu    sync.Mutex
	wbuf   []byte
	closed bool // a close frame was written
}

// Upgrade completes the handshake of r (checked with CheckHandshake first)
// and takes over its connection. maxMessage bounds a message, all its
// fragments together (> 0).
func Upgrade(w http.ResponseWriter, r *http.Request, maxMessage int) (*Conn, error) {
	key, err := CheckHandshake(r)
	if err != nil {
		return nil, err
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		return nil, errors.New("websocket: the http.ResponseWriter cannot be hijacked")
	}
	nc, rw, err := hj.Hijack()
	if err != nil {
		return nil, fmt.Errorf("websocket: hijack: %w", err)
	}
	// http.Hijacker: the connection "may have read or write deadlines
	// already set" by the server; a session lives until it is closed.
	_ = nc.SetDeadline(time.Time{})
	resp := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
		AcceptKey(key) + "\r\n\r\n"
	if _, err := nc.Write([]byte(resp)); err != nil {
		_ = nc.Close()
		return nil, fmt.Errorf("websocket: write handshake: %w", err)
	}
	return NewConn(nc, rw.Reader, maxMessage), nil
}

// NewConn wraps a connection whose handshake is done; br (may be nil)
// holds bytes already read from it.
func NewConn(nc net.Conn, br *bufio.Reader, maxMessage int) *Conn {
	if br == nil {
		br = bufio.NewReader(nc)
	}
	return &Conn{nc: nc, br: br, max: maxMessage}
}

// NetConn returns the underlying connection (for deadlines).
func (c *Conn) NetConn() net.Conn { return c.nc }

// ReadMessage returns the next text or binary message, answering pings
// and skipping pongs on the way. A peer's close frame is answered and
// returned as a *CloseError; a frame that breaks the protocol, a message
// over the limit or text that is not UTF-8 closes the connection with
// 1002, 1009 or 1007 and returns the error.
func (c *Conn) ReadMessage() (opcode byte, msg []byte, err error) {
	var buf []byte
	msgOp := byte(0)
	for {
		h, err := c.readHeader()
		if err != nil {
			return 0, nil, c.fail(err)
		}
		// Every check on h.Length was made: it is at most the limit and
		// the limit minus what the message holds already.
		switch h.Opcode {
		case OpPing, OpPong, OpClose:
			var p [maxControlPayload]byte
			payload := p[:h.Length]
			if _, err := io.ReadFull(c.br, payload); err != nil {
				return 0, nil, err
			}
			maskBytes(h.Mask, 0, payload)
			switch h.Opcode {
			case OpPing:
				if err := c.write(OpPong, payload); err != nil {
					return 0, nil, err
				}
			case OpClose:
				return 0, nil, c.peerClosed(payload)
			}
			continue
		case OpContinuation:
			if msgOp == 0 {
				return 0, nil, c.fail(fmt.Errorf("%w: continuation frame without a message", ErrProtocol))
			}
		default:
			if msgOp != 0 {
				return 0, nil, c.fail(fmt.Errorf("%w: new message before the last one's final fragment", ErrProtocol))
			}
			msgOp = h.Opcode
		}
		if h.Length > uint64(c.max-len(buf)) {
			return 0, nil, c.fail(fmt.Errorf("%w: message over %d bytes", ErrTooBig, c.max))
		}
		// Read in steps, so that memory follows the bytes that arrive,
		// not the length the header claims.
		start := len(buf)
		for rem := int(h.Length); rem > 0; {
			k := min(rem, readStep)
			at := len(buf)
			buf = slices.Grow(buf, k)[:at+k]
			if _, err := io.ReadFull(c.br, buf[at:]); err != nil {
				return 0, nil, err
			}
			rem -= k
		}
		maskBytes(h.Mask, 0, buf[start:])
		if h.Fin {
			if msgOp == OpText && !utf8.Valid(buf) {
				return 0, nil, c.fail(errInvalidUTF8)
			}
			return msgOp, buf, nil
		}
	}
}

// readStep is how much of a frame's payload is read at a time.
const readStep = 32 << 10

var errInvalidUTF8 = errors.New("websocket: text message is not UTF-8")

// readHeader reads and parses one frame header (at most 14 bytes).
func (c *Conn) readHeader() (Header, error) {
	n := 2
	for {
		b, err := c.br.Peek(n)
		if err != nil {
			return Header{}, err
		}
		h, size, err := ParseHeader(b, uint64(c.max))
		if err != nil {
			return h, err
		}
		if size > 0 {
			_, _ = c.br.Discard(size)
			return h, nil
		}
		n = headerSize(b)
	}
}

// headerSize is the full size of the header whose first bytes are b.
func headerSize(b []byte) int {
	switch b[1] & 0x7F {
	case 126:
		return 2 + 2 + 4
	case 127:
		return 2 + 8 + 4
	}
	return 2 + 4
}

// peerClosed answers a close frame with the same code and reports it.
func (c *Conn) peerClosed(payload []byte) error {
	ce := &CloseError{Code: CloseNoStatus}
	switch {
	case len(payload) == 1:
		_ = c.Close(CloseProtocolError, "close frame of 1 byte")
		return ce
	case len(payload) >= 2:
		ce.Code = int(binary.BigEndian.Uint16(payload))
		if !utf8.Valid(payload[2:]) {
			_ = c.Close(CloseInvalidPayload, "close reason is not UTF-8")
			return ce
		}
		ce.Reason = string(payload[2:])
	}
	code := ce.Code
	if code == CloseNoStatus {
		code = CloseNormal
	}
	_ = c.Close(code, "")
	return ce
}

// fail closes the connection with the code err calls for and returns err.
func (c *Conn) fail(err error) error {
	switch {
	case errors.Is(err, ErrTooBig):
		_ = c.Close(CloseMessageTooBig, "message too big")
	case errors.Is(err, ErrProtocol):
		_ = c.Close(CloseProtocolError, "protocol error")
	case errors.Is(err, errInvalidUTF8):
		_ = c.Close(CloseInvalidPayload, "text is not UTF-8")
	}
	return err
}

// closeWriteTimeout bounds how long Close waits for a write in progress
// and for its close frame.
const closeWriteTimeout = time.Second

// WriteText sends a text message (one frame).
func (c *Conn) WriteText(msg []byte) error { return c.write(OpText, msg) }

// WritePing sends a ping.
func (c *Conn) WritePing(payload []byte) error { return c.write(OpPing, payload) }

func (c *Conn) write(op byte, payload []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed {
		return net.ErrClosed
	}
	c.wbuf = AppendFrame(c.wbuf[:0], op, payload)
	_, err := c.nc.Write(c.wbuf)
	if cap(c.wbuf) > 64<<10 {
		c.wbuf = nil // keep no large buffer between messages
	}
	return err
}

// Close sends a close frame with code and reason (once) and closes the
// connection.
func (c *Conn) Close(code int, reason string) error {
	// A write blocked on a peer that does not read holds wmu: the deadline
	// ends it, and bounds the close frame's own write.
	_ = c.nc.SetWriteDeadline(time.Now().Add(closeWriteTimeout))
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if len(reason) > maxControlPayload-2 {
		reason = reason[:maxControlPayload-2]
	}
	p := binary.BigEndian.AppendUint16(nil, uint16(code))
	p = append(p, reason...)
	_, _ = c.nc.Write(AppendFrame(nil, OpClose, p))
	return c.nc.Close()
}
