package brokerstub

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrProxyHeader is wrapped by the refusal of a malformed HAProxy PROXY
// protocol header (the connection is closed).
var ErrProxyHeader = errors.New("brokerstub: bad PROXY protocol header")

// proxyHeaderTimeout bounds how long a connection may take to send its
// PROXY protocol header once it has started one.
const proxyHeaderTimeout = 10 * time.Second

var (
	proxyV1Sig = []byte("PROXY ")
	proxyV2Sig = []byte("\r\n\r\n\x00\r\nQUIT\n")
)

// proxyV1Max is the longest v1 header ("PROXY" line with CRLF), per the
// HAProxy specification.
const proxyV1Max = 107

// proxyConn is a connection whose first bytes may be an HAProxy PROXY
// protocol header, v1 (text) or v2 (binary), as Pulsar's
// OptionalProxyProtocolDecoder (haProxyProtocolEnabled) and Jetty's
// ProxyConnectionFactory take it: with a header, RemoteAddr is the client
// address the header names; without, the connection is read as it is.
// The header is read on the first Read (or, when eager, the first
// RemoteAddr: net/http asks for it before reading), with a deadline and
// bounded memory; a malformed one fails the read, which closes the
// connection.
type proxyConn struct {
	net.Conn
	eager bool

	once    sync.Once
	mu      sync.Mutex
	src     net.Addr // the header's source address; nil: the peer's
	pending []byte   // bytes read while looking for a header, to be read again
	err     error
}

func newProxyConn(nc net.Conn, eager bool) *proxyConn { return &proxyConn{Conn: nc, eager: eager} }

// NetConn returns the connection under the header.
func (c *proxyConn) NetConn() net.Conn { return c.Conn }

// PeerAddr is the address of the connection's TCP peer (the proxy).
func (c *proxyConn) PeerAddr() net.Addr { return c.Conn.RemoteAddr() }

// RemoteAddr is the client address of the PROXY header, or the peer's.
func (c *proxyConn) RemoteAddr() net.Addr {
	if c.eager {
		c.once.Do(c.readHeader)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.src != nil {
		return c.src
	}
	return c.Conn.RemoteAddr()
}

func (c *proxyConn) Read(p []byte) (int, error) {
	c.once.Do(c.readHeader)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return 0, err
	}
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		c.mu.Unlock()
		return n, nil
	}
	c.mu.Unlock()
	return c.Conn.Read(p)
}

// readHeader reads a PROXY header if the connection starts with one.
func (c *proxyConn) readHeader() {
	_ = c.Conn.SetReadDeadline(time.Now().Add(proxyHeaderTimeout))
	defer func() { _ = c.Conn.SetReadDeadline(time.Time{}) }()
	src, pending, err := readProxyHeader(c.Conn, c.Conn.RemoteAddr())
	if err != nil {
		// A read error of the connection, so that net/http closes it
		// without an answer, as Jetty does (and the binary reader stops).
		err = &net.OpError{Op: "read", Net: "tcp", Addr: c.Conn.LocalAddr(), Source: c.Conn.RemoteAddr(), Err: err}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.src, c.pending, c.err = src, pending, err
}

// readProxyHeader reads from r until its bytes diverge from both
// signatures (then they are returned as pending, to be read again) or a
// whole header has been read: it returns the source address it names (nil
// for LOCAL, UNKNOWN or an unspecified family: the peer's address stands).
func readProxyHeader(r io.Reader, peer net.Addr) (net.Addr, []byte, error) {
	var buf [16]byte
	n := 0
	v1, v2 := true, true
	for v1 || v2 {
		if n == len(proxyV2Sig) && v2 || n == len(proxyV1Sig) && v1 {
			break
		}
		if _, err := io.ReadFull(r, buf[n:n+1]); err != nil {
			if n == 0 {
				return nil, nil, err
			}
			return nil, append([]byte(nil), buf[:n]...), nil // let the reader see what came and the error after
		}
		b := buf[n]
		v1 = v1 && n < len(proxyV1Sig) && b == proxyV1Sig[n]
		v2 = v2 && n < len(proxyV2Sig) && b == proxyV2Sig[n]
		n++
	}
	switch {
	case v1:
		return readProxyV1(r)
	case v2:
		return readProxyV2(r, peer)
	}
	return nil, append([]byte(nil), buf[:n]...), nil
}

// readProxyV1 reads the rest of a v1 line: "TCP4|TCP6 src dst sport dport"
// or "UNKNOWN ...", and CRLF, at most proxyV1Max bytes in all.
func readProxyV1(r io.Reader) (net.Addr, []byte, error) {
	var line [proxyV1Max]byte
	n := 0
	for {
		if n == len(line)-len(proxyV1Sig) {
			return nil, nil, fmt.Errorf("%w: v1 line longer than %d bytes", ErrProxyHeader, proxyV1Max)
		}
		if _, err := io.ReadFull(r, line[n:n+1]); err != nil {
			return nil, nil, fmt.Errorf("%w: v1: %w", ErrProxyHeader, err)
		}
		n++
		if n >= 2 && line[n-2] == '\r' && line[n-1] == '\n' {
			break
		}
	}
	f := strings.Split(string(line[:n-2]), " ")
	if f[0] == "UNKNOWN" {
		return nil, nil, nil
	}
	if len(f) != 5 || f[0] != "TCP4" && f[0] != "TCP6" {
		return nil, nil, fmt.Errorf("%w: v1 line %q", ErrProxyHeader, line[:n-2])
	}
	ip := net.ParseIP(f[1])
	port, err := strconv.ParseUint(f[3], 10, 16)
	if ip == nil || net.ParseIP(f[2]) == nil || err != nil || (ip.To4() != nil) != (f[0] == "TCP4") {
		return nil, nil, fmt.Errorf("%w: v1 line %q", ErrProxyHeader, line[:n-2])
	}
	if _, err := strconv.ParseUint(f[4], 10, 16); err != nil {
		return nil, nil, fmt.Errorf("%w: v1 line %q", ErrProxyHeader, line[:n-2])
	}
	return &net.TCPAddr{IP: ip, Port: int(port)}, nil, nil
}

// readProxyV2 reads the rest of a v2 header: version and command, family,
// length, addresses; TLVs are skipped (read and dropped, not kept).
func readProxyV2(r io.Reader, peer net.Addr) (net.Addr, []byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, nil, fmt.Errorf("%w: v2: %w", ErrProxyHeader, err)
	}
	if hdr[0]>>4 != 2 {
		return nil, nil, fmt.Errorf("%w: v2: version %d", ErrProxyHeader, hdr[0]>>4)
	}
	cmd := hdr[0] & 0xF
	if cmd > 1 {
		return nil, nil, fmt.Errorf("%w: v2: command %d", ErrProxyHeader, cmd)
	}
	length := int(binary.BigEndian.Uint16(hdr[2:]))
	var addrLen int
	switch hdr[1] >> 4 {
	case 0: // AF_UNSPEC
	case 1:
		addrLen = 12
	case 2:
		addrLen = 36
	case 3:
		addrLen = 216
	default:
		return nil, nil, fmt.Errorf("%w: v2: address family %d", ErrProxyHeader, hdr[1]>>4)
	}
	if length < addrLen {
		return nil, nil, fmt.Errorf("%w: v2: %d bytes for addresses of %d", ErrProxyHeader, length, addrLen)
	}
	var addrs [216]byte
	if _, err := io.ReadFull(r, addrs[:addrLen]); err != nil {
		return nil, nil, fmt.Errorf("%w: v2: %w", ErrProxyHeader, err)
	}
	if _, err := io.CopyN(io.Discard, r, int64(length-addrLen)); err != nil { // TLVs: at most 64 KiB, not kept
		return nil, nil, fmt.Errorf("%w: v2: %w", ErrProxyHeader, err)
	}
	if cmd == 0 { // LOCAL: a health check of the proxy itself
		return nil, nil, nil
	}
	switch addrLen {
	case 12:
		return &net.TCPAddr{IP: net.IP(bytes.Clone(addrs[0:4])), Port: int(binary.BigEndian.Uint16(addrs[8:]))}, nil, nil
	case 36:
		return &net.TCPAddr{IP: net.IP(bytes.Clone(addrs[0:16])), Port: int(binary.BigEndian.Uint16(addrs[32:]))}, nil, nil
	}
	return nil, nil, nil // unspecified or a UNIX socket: the peer's address stands
}

// proxyListener wraps the connections of ln in eager proxyConns (for the
// web service, Pulsar's webServiceHaProxyProtocolEnabled).
type proxyListener struct{ net.Listener }

func (l proxyListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return newProxyConn(c, true), nil
}

// haProxy reads haProxyProtocolEnabled and webServiceHaProxyProtocolEnabled.
func (p *configParser) haProxy(o *Options) {
	o.HAProxyProtocol = p.bool("haProxyProtocolEnabled", false)
	o.WebServiceHAProxyProtocol = p.bool("webServiceHaProxyProtocolEnabled", false)
}
