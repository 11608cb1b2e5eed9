package brokerstub

import (
	"github.com/pulsargo/sdk/brokerstub/internal/admin"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// webConfig returns the parts of o that the HTTP side reads (web.go). o
// has its defaults applied.
func (o Options) webConfig() admin.Config {
	return admin.Config{
		Clock:                            o.Clock,
		ClusterName:                      o.ClusterName,
		AnonymousUserRole:                o.AnonymousUserRole,
		Profiling:                        o.Profiling,
		Console:                          o.Console,
		HTTPAddr:                         o.HTTPAddr,
		DisableWebServicePort:            o.DisableWebServicePort,
		NoListener:                       o.NoListener,
		TLS:                              o.TLS,
		WebServiceTLS:                    o.WebServiceTLS,
		WebServiceTLSAddr:                o.WebServiceTLSAddr,
		WebServiceHAProxyProtocol:        o.WebServiceHAProxyProtocol,
		HTTPReadTimeout:                  o.HTTPReadTimeout,
		HTTPReadHeaderTimeout:            o.HTTPReadHeaderTimeout,
		HTTPIdleTimeout:                  o.HTTPIdleTimeout,
		HTTPMaxHeaderBytes:               o.HTTPMaxHeaderBytes,
		MaxMessageSize:                   o.MaxMessageSize,
		AutoTopicCreationPartitions:      o.AutoTopicCreationPartitions,
		LedgerRolloverEntries:            o.LedgerRolloverEntries,
		KeepAliveInterval:                o.KeepAliveInterval,
		EntryCacheSize:                   o.EntryCacheSize,
		DisableBatchIndexAck:             o.DisableBatchIndexAck,
		DisableAutoTopicCreation:         o.DisableAutoTopicCreation,
		HTTPLimits:                       admin.HTTPLimitsConfig(o.HTTPLimits),
		DefaultNumberOfNamespaceBundles:  o.Tenancy.DefaultNumberOfNamespaceBundles,
		ClientLibraryVersionCheckEnabled: o.Gates.ClientLibraryVersionCheckEnabled,
		BacklogQuota:                     engine.BacklogQuotaConfig(o.BacklogQuota),
		BacklogScan:                      admin.BacklogScanConfig(o.BacklogScan),
		Packages:                         admin.PackagesConfig(o.Packages),
		WebSocket:                        admin.WebSocketConfig(o.WebSocket),
	}
}
