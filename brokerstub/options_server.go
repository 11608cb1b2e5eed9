package brokerstub

import "github.com/pulsargo/sdk/brokerstub/internal/protocol"

// serverConfig returns the parts of o that the binary protocol reads
// (server.go). o has its defaults applied.
func (o Options) serverConfig() protocol.Config {
	c := protocol.Config{
		Clock:                        o.Clock,
		MaxMessageSize:               o.MaxMessageSize,
		MaxFrameSizeBeforeConnect:    o.MaxFrameSizeBeforeConnect,
		MaxConnections:               o.MaxConnections,
		MaxConnectionsPerIP:          o.MaxConnectionsPerIP,
		MaxConcurrentLookups:         o.MaxConcurrentLookups,
		KeepAliveInterval:            o.KeepAliveInterval,
		PauseReceivingIfUnwritable:   o.PauseReceivingIfUnwritable,
		WriteBufferHighWaterMark:     o.WriteBufferHighWaterMark,
		WriteBufferLowWaterMark:      o.WriteBufferLowWaterMark,
		MaxQueuedAnswers:             o.MaxQueuedAnswers,
		Authenticate:                 o.Authenticate,
		AnonymousUserRole:            o.AnonymousUserRole,
		AuthenticationRefreshCheck:   o.AuthenticationRefreshCheck,
		AuthenticateOriginalAuthData: o.AuthenticateOriginalAuthData,
		ProxyRoles:                   o.ProxyRoles,
		MaxConcurrentNonPersistentMessagePerConnection: o.Gates.MaxConcurrentNonPersistentMessagePerConnection,
	}
	for _, p := range o.AuthenticationProviders {
		c.AuthMethods = append(c.AuthMethods, p.AuthMethodName())
	}
	return c
}
