package protocol

import (
	"crypto/tls"
	"crypto/x509"
	"net"
)

// peerCertificates returns the verified-or-presented client certificates of
// a TLS connection, nil for a plain one.
func peerCertificates(nc net.Conn) []*x509.Certificate {
	for {
		switch c := nc.(type) {
		case *tls.Conn:
			return c.ConnectionState().PeerCertificates
		case interface{ NetConn() net.Conn }: // a PROXY protocol header read (proxyproto.go)
			nc = c.NetConn()
		default:
			return nil
		}
	}
}
