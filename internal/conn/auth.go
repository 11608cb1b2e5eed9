package conn

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// maxHandshakeChallenges bounds the AUTH_CHALLENGE rounds of a handshake.
const maxHandshakeChallenges = 8

// tlsFor returns cfg for a connection to addr: without a ServerName, a
// copy naming addr's host (sent as SNI, and checked when verification is
// on), so that a broker the lookup redirected to is checked by its own
// name rather than the service URL's.
func tlsFor(cfg *tls.Config, addr string) *tls.Config {
	if cfg.ServerName != "" {
		return cfg
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	cfg = cfg.Clone()
	cfg.ServerName = host
	return cfg
}

// isTLSAlert reports whether err is a TLS alert the peer sent (crypto/tls
// reports them as a *net.OpError "remote error").
func isTLSAlert(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "remote error"
}

// authResponse builds the AUTH_RESPONSE frame to a challenge: fresh
// credentials from AuthData, as the official client answers (never nil
// data: brokers expect the field).
func (c *Conn) authResponse(ch *proto.CommandAuthChallenge) ([]byte, error) {
	var data []byte
	if c.opts.AuthData != nil {
		d, err := c.opts.AuthData()
		if err != nil {
			return nil, fmt.Errorf("auth data for challenge: %w", err)
		}
		data = d
	}
	if data == nil {
		data = []byte{}
	}
	c.log.Debug("answering auth challenge", "method", ch.GetChallenge().GetAuthMethodName())
	return wire.AppendCommand(nil, &proto.BaseCommand{
		Type: proto.BaseCommand_AUTH_RESPONSE.Enum(),
		AuthResponse: &proto.CommandAuthResponse{
			ClientVersion:   gproto.String(c.opts.ClientVersion),
			ProtocolVersion: gproto.Int32(protocolVersion),
			Response:        &proto.AuthData{AuthMethodName: gproto.String(c.opts.AuthMethod), AuthData: data},
		},
	})
}

// answerChallenge answers an AUTH_CHALLENGE on an open connection, off the
// reader goroutine (fresh credentials may take a request to an OAuth2
// issuer). Credentials that cannot be had close the connection, as the
// official client does; the broker would close it anyway.
func (c *Conn) answerChallenge(ch *proto.CommandAuthChallenge) {
	frame, err := c.authResponse(ch)
	if err != nil {
		c.log.Warn("cannot answer the broker's auth challenge; closing", "err", err)
		c.closeWith(fmt.Errorf("%w: %w", ErrHandshake, err))
		return
	}
	if !c.out.Push(outFrame{header: frame}) {
		c.log.Debug("connection closed before the auth response was sent")
	}
}
