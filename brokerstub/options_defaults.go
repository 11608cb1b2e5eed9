package brokerstub

import (
	"log/slog"
	"time"

	"github.com/pulsargo/sdk/internal/clock"
	"github.com/pulsargo/sdk/internal/wire"
)

// DefaultEntryCacheSize is Options.EntryCacheSize's default, 128 MiB.
const DefaultEntryCacheSize = 128 << 20

// defaultMaxFrameSizeBeforeConnect is Options.MaxFrameSizeBeforeConnect's
// default: the credentials the broker reads (maxAuthData) and room for the
// rest of CONNECT.
const defaultMaxFrameSizeBeforeConnect = maxAuthData + wire.FramePadding

func (o Options) withDefaults() Options {
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.HTTPAddr == "" {
		o.HTTPAddr = "127.0.0.1:0"
	}
	if o.ClusterName == "" {
		o.ClusterName = "standalone"
	}
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = wire.DefaultMaxMessageSize
	}
	if o.LedgerRolloverEntries <= 0 {
		o.LedgerRolloverEntries = 50_000
	}
	if o.EntryCacheSize == 0 {
		o.EntryCacheSize = DefaultEntryCacheSize
	}
	if o.KeepAliveInterval <= 0 {
		o.KeepAliveInterval = 30 * time.Second
	}
	if o.MaxFrameSizeBeforeConnect <= 0 {
		o.MaxFrameSizeBeforeConnect = defaultMaxFrameSizeBeforeConnect
	}
	if o.WriteBufferHighWaterMark <= 0 {
		o.WriteBufferHighWaterMark = 64 << 10
	}
	if o.WriteBufferLowWaterMark <= 0 {
		o.WriteBufferLowWaterMark = 32 << 10
	}
	o.WriteBufferLowWaterMark = min(o.WriteBufferLowWaterMark, o.WriteBufferHighWaterMark)
	if o.MaxQueuedAnswers <= 0 {
		o.MaxQueuedAnswers = 32 << 20
	}
	if o.HTTPReadHeaderTimeout <= 0 {
		o.HTTPReadHeaderTimeout = 10 * time.Second
	}
	if o.HTTPReadTimeout <= 0 {
		o.HTTPReadTimeout = 60 * time.Second
	}
	if o.HTTPIdleTimeout <= 0 {
		o.HTTPIdleTimeout = 2 * o.KeepAliveInterval
	}
	if o.HTTPMaxHeaderBytes <= 0 {
		o.HTTPMaxHeaderBytes = 8 << 10
	}
	if o.CursorFlushInterval <= 0 {
		o.CursorFlushInterval = 60 * time.Second
	}
	if o.MessageExpiryCheckInterval <= 0 {
		o.MessageExpiryCheckInterval = 5 * time.Minute
	}
	if o.RetentionCheckInterval <= 0 {
		o.RetentionCheckInterval = 120 * time.Second
	}
	if o.ActiveConsumerFailoverDelay == 0 {
		o.ActiveConsumerFailoverDelay = time.Second
	}
	if o.DelayedDeliveryTickTime <= 0 {
		o.DelayedDeliveryTickTime = time.Second
	}
	if o.AuthenticationRefreshCheck <= 0 {
		o.AuthenticationRefreshCheck = 60 * time.Second
	}
	o.Limits = o.Limits.withDefaults()
	o.Compaction = o.Compaction.withDefaults()
	o.Gates = o.Gates.withDefaults()
	o.RateLimits = o.RateLimits.withDefaults()
	o.HTTPLimits = o.HTTPLimits.withDefaults()
	if o.MaxConcurrentLookups == 0 {
		o.MaxConcurrentLookups = DefaultMaxConcurrentLookups
	}
	o.Lifecycle = o.Lifecycle.withDefaults()
	o.Tenancy = o.Tenancy.withDefaults()
	o.WebSocket = o.WebSocket.withDefaults()
	o.BacklogScan = o.BacklogScan.withDefaults()
	o.Packages = o.Packages.withDefaults()
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// DefaultMaxConcurrentLookups is Options.MaxConcurrentLookups's default,
// Pulsar's maxConcurrentLookupRequest.
const DefaultMaxConcurrentLookups = 50_000
