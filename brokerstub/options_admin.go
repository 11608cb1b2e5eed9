package brokerstub

// Options of what the admin API serves and configures: the default backlog
// quota, backlog scans and the packages store.

import (
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// BacklogQuota is a backlog quota (Pulsar's BacklogQuota): a limit on a
// subscription's backlog by size and by age, and what happens to producers
// beyond it.
type BacklogQuota struct {
	// LimitBytes is the largest backlog in bytes; 0 or less: no limit.
	LimitBytes int64
	// LimitSeconds is the oldest unacknowledged message's largest age; 0 or
	// less: no limit.
	LimitSeconds int64
	// Policy is "producer_request_hold", "producer_exception" or
	// "consumer_backlog_eviction". Default "producer_request_hold".
	Policy string
	// CheckInterval is how often topics check their backlog against the
	// quota (Pulsar's backlogQuotaCheckIntervalInSeconds); producers are
	// also checked when they attach. Default 60 s; negative: no periodic
	// check (backlogQuotaCheckEnabled=false).
	CheckInterval time.Duration
}

// BacklogScanOptions bound the analyze-backlog admin call
// (POST …/subscription/{sub}/analyzeBacklog).
type BacklogScanOptions struct {
	// MaxEntries is the most entries one call reads
	// (subscriptionBacklogScanMaxEntries); past it the answer says
	// "aborted". Default 10000, Pulsar's.
	MaxEntries int
	// MaxTime is how long one call may scan, on Options.Clock
	// (subscriptionBacklogScanMaxTimeMs); past it the answer says
	// "aborted". Default 2 minutes, Pulsar's.
	MaxTime time.Duration
}

func (o BacklogScanOptions) withDefaults() BacklogScanOptions {
	if o.MaxEntries <= 0 {
		o.MaxEntries = 10_000
	}
	if o.MaxTime <= 0 {
		o.MaxTime = 2 * time.Minute
	}
	return o
}

// PackagesOptions configure Pulsar's packages admin API
// (/admin/v3/packages/...), kept in the broker's store.
type PackagesOptions struct {
	// Enabled serves the packages API (enablePackagesManagement); when
	// off, its routes answer 503 "Package Management Service is not
	// enabled in the broker.", as Pulsar's. Default false, Pulsar's.
	Enabled bool
	// MaxSize is the largest package an upload may carry; a larger one is
	// refused with 413. Default 16 MiB.
	MaxSize int64
	// MaxTotalSize bounds all packages together; an upload past it is
	// refused with 413. Default 256 MiB.
	MaxTotalSize int64
}

func (o PackagesOptions) withDefaults() PackagesOptions {
	if o.MaxSize <= 0 {
		o.MaxSize = 16 << 20
	}
	if o.MaxTotalSize <= 0 {
		o.MaxTotalSize = 256 << 20
	}
	return o
}

// CompactionOptions configure topic compaction.
type CompactionOptions struct {
	// ThresholdBytes is the backlog of the __compaction subscription, in
	// bytes, past which the monitor compacts a topic (Pulsar's
	// brokerServiceCompactionThresholdInBytes); the compactionThreshold
	// namespace and topic policies override it. Default 0: no automatic
	// compaction, as Pulsar's.
	ThresholdBytes int64
	// MonitorInterval is how often the monitor looks at each topic's
	// backlog (Pulsar's brokerServiceCompactionMonitorIntervalInSeconds).
	// Default 60 s, as Pulsar's.
	MonitorInterval time.Duration
}

func (o CompactionOptions) withDefaults() CompactionOptions {
	if o.MonitorInterval <= 0 {
		o.MonitorInterval = 60 * time.Second
	}
	if o.ThresholdBytes < 0 {
		o.ThresholdBytes = 0
	}
	return o
}

// Retention is a retention policy (Pulsar's RetentionPolicies, in
// Options.Retention as defaultRetentionTimeInMinutes and
// defaultRetentionSizeInMB): Time is how long consumed data is kept, Size
// how many bytes of it; a negative value is no limit (Pulsar's -1). The
// zero value keeps nothing that every subscription has consumed, as
// Pulsar's default.
type Retention = ledger.Retention

// WebSocketOptions configure Pulsar's WebSocket API
// (/ws/v2/producer/..., /ws/v2/consumer/..., /ws/v2/reader/...) on the
// web service port, as Pulsar's broker serves it with
// webSocketServiceEnabled=true.
type WebSocketOptions struct {
	// Enabled serves the WebSocket API (webSocketServiceEnabled). Default
	// false: /ws/ paths answer 404, as Pulsar's.
	Enabled bool
	// MaxTextFrameSize bounds a message a client sends, all its fragments
	// together (webSocketMaxTextFrameSize); a larger one closes the
	// session with 1009. Default 1048576 (1 MiB), Pulsar's.
	MaxTextFrameSize int
	// SessionIdleTimeout closes a session with nothing read or written for
	// that long, on Options.Clock (webSocketSessionIdleTimeoutMillis).
	// Default 300 s, Pulsar's.
	SessionIdleTimeout time.Duration
}

func (o WebSocketOptions) withDefaults() WebSocketOptions {
	if o.MaxTextFrameSize <= 0 {
		o.MaxTextFrameSize = 1 << 20
	}
	if o.SessionIdleTimeout <= 0 {
		o.SessionIdleTimeout = 300 * time.Second
	}
	return o
}
