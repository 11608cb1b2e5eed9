package brokerstub

import (
	"fmt"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// Lifecycle configures what the broker does on its own as time passes:
// deleting inactive topics (inactive.go), expiring subscriptions
// (subexpiry.go), forgetting inactive producers of deduplication
// (dedup_inactive.go) and rolling ledgers over by time and size
// (rollover.go), with Pulsar's keys and defaults. Time is read from
// Options.Clock.
type Lifecycle struct {
	// DisableInactiveTopicDeletion keeps inactive topics (Pulsar's
	// brokerDeleteInactiveTopicsEnabled=false): no topic is deleted for
	// inactivity, whatever its inactiveTopicPolicies say. Default false: as
	// Pulsar's default and every standalone.conf, a topic without
	// producers, consumers and (in the default mode) subscriptions for
	// InactiveTopicMaxDuration is deleted with its data at the next check.
	DisableInactiveTopicDeletion bool
	// InactiveTopicCheckInterval is how often topics are checked for
	// inactivity (brokerDeleteInactiveTopicsFrequencySeconds). Default 60 s.
	InactiveTopicCheckInterval time.Duration
	// InactiveTopicMaxDuration is how long a topic must have been inactive
	// to be deleted (brokerDeleteInactiveTopicsMaxInactiveDurationSeconds);
	// the inactiveTopicPolicies of a namespace or topic override it.
	// Default: InactiveTopicCheckInterval, as Pulsar's.
	InactiveTopicMaxDuration time.Duration
	// InactiveTopicDeleteMode is what makes a topic without producers and
	// consumers inactive (brokerDeleteInactiveTopicsMode):
	// "delete_when_no_subscriptions" (it has no subscription) or
	// "delete_when_subscriptions_caught_up" (no subscription has a
	// backlog; they are deleted with the topic). Another value fails
	// Start. Default "delete_when_no_subscriptions", as Pulsar's.
	InactiveTopicDeleteMode string
	// DeleteInactivePartitionedTopicMetadata deletes a partitioned topic's
	// metadata once inactivity has deleted all its partitions
	// (brokerDeleteInactivePartitionedTopicMetadataEnabled). Default false,
	// as Pulsar's: the partitioned topic stays, its partitions are created
	// again on use.
	DeleteInactivePartitionedTopicMetadata bool

	// SubscriptionExpiration deletes a durable subscription that has had
	// no consumer for this long (subscriptionExpirationTimeMinutes, whole
	// minutes); the subscriptionExpirationTime policy of a topic and the
	// subscription_expiration_time_minutes policy of a namespace override
	// it. Default 0: never, as Pulsar's.
	SubscriptionExpiration time.Duration
	// SubscriptionExpiryCheckInterval is how often subscriptions are checked
	// for expiry (subscriptionExpiryCheckIntervalInMinutes). Default 5 min,
	// as Pulsar's.
	SubscriptionExpiryCheckInterval time.Duration

	// DedupProducerInactivityTimeout is how long deduplication remembers
	// the last sequence id of a producer name that is not connected
	// (brokerDeduplicationProducerInactivityTimeoutMinutes); after it, a
	// producer of that name starts afresh and an old sequence id is stored
	// again. It is checked every third of it. Default 6 h, as Pulsar's.
	DedupProducerInactivityTimeout time.Duration

	// LedgerMaxRolloverTime starts a new ledger once the current one is
	// this old (managedLedgerMaxLedgerRolloverTimeMinutes): checked after
	// each append and every LedgerMaxRolloverTime. Default 0: by entries
	// and size only (Pulsar's default is 240 min, which ParseConfig applies).
	LedgerMaxRolloverTime time.Duration
	// LedgerMinRolloverTime keeps a ledger at least this long, however
	// many entries or bytes it has (managedLedgerMinLedgerRolloverTimeMinutes).
	// Default 0: none (Pulsar's default is 10 min, which ParseConfig
	// applies: with it a small LedgerRolloverEntries rolls only after 10
	// minutes, as on Pulsar).
	LedgerMinRolloverTime time.Duration
	// LedgerMaxSize starts a new ledger once the current one holds this
	// many bytes of entries (managedLedgerMaxSizePerLedgerMbytes). Default
	// 0: no size limit (Pulsar's default is 2048 MB, which ParseConfig
	// applies).
	LedgerMaxSize int64
	// LedgerInactiveRolloverTime closes a ledger that has had no append
	// for this long, so that the next message starts a new one
	// (managedLedgerInactiveLedgerRolloverTimeSeconds). Default 0: never,
	// as Pulsar's.
	LedgerInactiveRolloverTime time.Duration
}

func (l Lifecycle) withDefaults() Lifecycle {
	if l.InactiveTopicCheckInterval <= 0 {
		l.InactiveTopicCheckInterval = 60 * time.Second
	}
	if l.InactiveTopicMaxDuration <= 0 {
		l.InactiveTopicMaxDuration = l.InactiveTopicCheckInterval
	}
	if l.InactiveTopicDeleteMode == "" {
		l.InactiveTopicDeleteMode = engine.DeleteWhenNoSubscriptions
	}
	if l.SubscriptionExpiryCheckInterval <= 0 {
		l.SubscriptionExpiryCheckInterval = 5 * time.Minute
	}
	if l.DedupProducerInactivityTimeout <= 0 {
		l.DedupProducerInactivityTimeout = 6 * time.Hour
	}
	return l
}

// check refuses what Start cannot act on.
func (l Lifecycle) check() error {
	switch l.InactiveTopicDeleteMode {
	case engine.DeleteWhenNoSubscriptions, engine.DeleteWhenSubscriptionsCaughtUp:
		return nil
	}
	return fmt.Errorf("brokerstub: Lifecycle.InactiveTopicDeleteMode %q: want %s or %s",
		l.InactiveTopicDeleteMode, engine.DeleteWhenNoSubscriptions, engine.DeleteWhenSubscriptionsCaughtUp)
}

// lifecycle reads the keys of Lifecycle and Tenancy (ParseConfig). Keys a
// file leaves out keep Pulsar's defaults, also where Options' zero value
// differs (the ledger rollover times and size).
func (p *configParser) lifecycle(o *Options) {
	l := &o.Lifecycle
	l.DisableInactiveTopicDeletion = !p.bool("brokerDeleteInactiveTopicsEnabled", true)
	freq := p.int("brokerDeleteInactiveTopicsFrequencySeconds", 60, 1)
	l.InactiveTopicCheckInterval = time.Duration(freq) * time.Second
	l.InactiveTopicMaxDuration = time.Duration(p.int("brokerDeleteInactiveTopicsMaxInactiveDurationSeconds", freq, 1)) * time.Second
	l.InactiveTopicDeleteMode = p.str("brokerDeleteInactiveTopicsMode", engine.DeleteWhenNoSubscriptions)
	if err := l.check(); err != nil {
		p.fail("brokerDeleteInactiveTopicsMode", l.InactiveTopicDeleteMode,
			"want "+engine.DeleteWhenNoSubscriptions+" or "+engine.DeleteWhenSubscriptionsCaughtUp)
	}
	l.DeleteInactivePartitionedTopicMetadata = p.bool("brokerDeleteInactivePartitionedTopicMetadataEnabled", false)
	l.SubscriptionExpiration = time.Duration(p.int("subscriptionExpirationTimeMinutes", 0, 0)) * time.Minute
	l.SubscriptionExpiryCheckInterval = time.Duration(p.int("subscriptionExpiryCheckIntervalInMinutes", 5, 1)) * time.Minute
	l.DedupProducerInactivityTimeout = time.Duration(p.int("brokerDeduplicationProducerInactivityTimeoutMinutes", 360, 1)) * time.Minute
	l.LedgerMaxRolloverTime = time.Duration(p.int("managedLedgerMaxLedgerRolloverTimeMinutes", 240, 0)) * time.Minute
	l.LedgerMinRolloverTime = time.Duration(p.int("managedLedgerMinLedgerRolloverTimeMinutes", 10, 0)) * time.Minute
	l.LedgerMaxSize = p.int("managedLedgerMaxSizePerLedgerMbytes", 2048, 1) << 20
	l.LedgerInactiveRolloverTime = time.Duration(p.int("managedLedgerInactiveLedgerRolloverTimeSeconds", 0, 0)) * time.Second
	p.tenancy(o) // tenant_limits.go
}
