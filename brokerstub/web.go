package brokerstub

import (
	"net"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// web is the HTTP side of a broker: the admin REST API, HTTP lookups,
// /metrics, the console and the WebSocket API. It reaches the data path
// through the engine, and the rest of the broker only through the hooks
// below, which the Broker sets (issue #34: the admin API is to become a
// package of its own).
type web struct {
	eng  *engine.Engine
	opts Options

	admin *adminServer // the admin server while the broker runs (admin_server.go)

	// What the HTTP side asks of the rest of the broker, set by Start.
	hooks webHooks
}

// webHooks are the broker's answers the HTTP side needs and does not own:
// its URLs and listeners (broker.go, tls.go, listeners.go, broker_web.go),
// whether it is closed, authentication (auth.go), and a binary-protocol
// connection for a WebSocket session.
type webHooks struct {
	webServiceURL, webServiceTLSURL, brokerServiceURL, tlsURL, addr func() string
	advertise                                                       func(addr string) string
	listener                                                        func(name string) (Listener, bool)
	lookupURLs                                                      func(listener string) (plain, secure string, err error)
	isClosed                                                        func() bool
	// authenticate checks credentials with the configured providers.
	authenticate func(method string, d AuthenticationData, now time.Time) (Identity, error)
	// serveAs serves nc as a binary-protocol connection whose CONNECT
	// takes the role preset.
	serveAs func(nc net.Conn, listener string, preset *Identity)
}
