package protocol

import (
	"math"
	"net"
	"time"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// remoteHost is the client host a connection counts against for
// Options.MaxConnectionsPerIP: the IP of a TCP peer, the whole address of
// anything else (an in-memory Dial connection: "pipe").
func remoteHost(nc net.Conn) string {
	a := nc.RemoteAddr().String()
	if h, _, err := net.SplitHostPort(a); err == nil {
		return h
	}
	return a
}

// connLimitRefusal returns why a new connection from host is refused (the
// texts of Pulsar's ConnectionController), or "". b.mu is held.
func (b *Server) connLimitRefusal(nc net.Conn, host string) string {
	switch {
	case b.Cfg.MaxConnections > 0 && len(b.Conns) >= b.Cfg.MaxConnections:
		return "Reached the maximum number of connections"
	case b.Cfg.MaxConnectionsPerIP > 0 && b.connsPerHost[host] >= b.Cfg.MaxConnectionsPerIP:
		return "Reached the maximum number of connections on address " + nc.RemoteAddr().String()
	}
	return ""
}

// refuseWriteTimeout bounds how long a refused connection may take to read
// its error.
const refuseWriteTimeout = time.Second

// refuseConn writes ERROR NotAllowedError (request id -1) with msg and
// closes the connection, as Pulsar does for a connection over its limits.
func refuseConn(nc net.Conn, msg string) {
	id := uint64(math.MaxUint64)
	frame, err := wire.AppendCommand(nil, &proto.BaseCommand{Type: proto.BaseCommand_ERROR.Enum(), Error: &proto.CommandError{
		RequestId: &id, Error: proto.ServerError_NotAllowedError.Enum(), Message: &msg}})
	if err == nil {
		_ = nc.SetWriteDeadline(time.Now().Add(refuseWriteTimeout))
		_, _ = nc.Write(frame)
	}
	_ = nc.Close()
}
