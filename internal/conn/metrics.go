package conn

import (
	"errors"

	"github.com/pulsargo/sdk/internal/api"
)

// dialed reports the outcome of a Dial, as the official client counts
// them: opened, refused at the CONNECT handshake (authentication, a
// broker error), or not established (TCP, TLS). A connection that never
// opened is not counted as closed.
func dialed(m api.Recorder, err error) {
	switch {
	case err == nil:
		m.Add(api.MetricConnectionsOpened, 1)
	case errors.Is(err, ErrHandshake):
		m.Add(api.MetricConnectionsHandshakeErrors, 1)
	default:
		m.Add(api.MetricConnectionsEstablishmentErrors, 1)
	}
}
