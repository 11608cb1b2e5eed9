package conn

import (
	"bytes"
	"fmt"
	"io"
	"net"
)

// firstBytes reads through r and keeps the first bytes read, so that the
// handshake can tell what answered when the answer is no Pulsar frame.
type firstBytes struct {
	r    io.Reader
	head []byte // at most len("HTTP")
}

func (f *firstBytes) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if k := min(n, 4-len(f.head)); k > 0 {
		f.head = append(f.head, p[:k]...)
	}
	return n, err
}

// http reports whether the peer answered in HTTP ("HTTP/1.1 400 ..."):
// the four bytes a frame's size would be in read "HTTP" (1213486160, more
// than any frame may be).
func (f *firstBytes) http() bool { return bytes.Equal(f.head, []byte("HTTP")) }

// httpAnswer is the error of a handshake answered in HTTP: the address
// is a broker's (or proxy's) HTTP port, given where the binary protocol's
// port belongs. It says which ports to use instead.
func (c *Conn) httpAnswer() error {
	scheme, binPort := "pulsar", "6650"
	if c.opts.TLS != nil {
		scheme, binPort = "pulsar+ssl", "6651"
	}
	host, _, err := net.SplitHostPort(c.addr)
	if err != nil {
		host = c.addr
	}
	httpScheme := "http"
	if c.opts.TLS != nil {
		httpScheme = "https"
	}
	return fmt.Errorf("%w: %w: %s://%s answered in HTTP: this looks like an HTTP port, not the Pulsar binary protocol's; "+
		"use the broker's binary port (%s://%s by default) or this port with an HTTP service URL (%s://%s)",
		ErrConnect, ErrHandshake, scheme, c.addr, scheme, net.JoinHostPort(host, binPort), httpScheme, c.addr)
}
