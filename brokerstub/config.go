package brokerstub

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// Config is what ParseConfig read from a Pulsar broker.conf or
// standalone.conf: the Options for the keys brokerstub honours, and the keys
// it does not.
type Config struct {
	// Options holds the honoured keys; other fields keep their defaults.
	Options Options
	// Ignored lists, sorted, the keys set in the file that brokerstub does
	// not implement (their values have no effect).
	Ignored []string
	// Security lists, sorted, the TLS, authentication and authorization
	// keys set in the file that brokerstub does not implement (those it
	// does are listed in ParseConfig).
	Security []string
	// NoEffect lists, sorted, the keys set in the file that have no effect
	// a client can observe (ZooKeeper, BookKeeper, load balancing, thread
	// pools...; see docs/brokerstub-config.md).
	NoEffect []string
	// Unknown lists, sorted, the keys in no class of the census; set only
	// with ConfigOptions.IgnoreUnknownKeys (else they are an error).
	Unknown []string
}

// LoadConfig reads a Pulsar broker.conf or standalone.conf (key=value lines,
// '#' comments) and returns the Options for it; see ParseConfig for the
// keys honoured. Keys it does not implement are listed in one warning on
// slog.Default(); an unknown key is an error (*UnknownConfigKeyError).
func LoadConfig(path string) (Options, error) {
	f, err := os.Open(path)
	if err != nil {
		return Options{}, fmt.Errorf("brokerstub: config: %w", err)
	}
	defer f.Close()
	cfg, err := ParseConfig(f)
	if err != nil {
		return Options{}, fmt.Errorf("brokerstub: config %s: %w", path, err)
	}
	cfg.Warn(slog.Default(), path)
	return cfg.Options, nil
}

// Warn logs, as one warning, the keys of cfg that brokerstub does not
// implement (nothing when there are none), the unknown keys accepted with
// ConfigOptions.IgnoreUnknownKeys as another, and the keys without an
// observable effect at debug level.
func (cfg Config) Warn(log *slog.Logger, path string) {
	if len(cfg.NoEffect) > 0 {
		log.Debug("brokerstub: config keys accepted without observable effect", "file", path,
			"keys", strings.Join(cfg.NoEffect, ","))
	}
	if len(cfg.Unknown) > 0 {
		log.Warn("brokerstub: unknown config keys ignored", "file", path, "keys", strings.Join(cfg.Unknown, ","))
	}
	if len(cfg.Ignored) == 0 && len(cfg.Security) == 0 {
		return
	}
	log.Warn("brokerstub: config keys without effect", "file", path,
		"not_implemented", strings.Join(cfg.Ignored, ","),
		"security_ignored", strings.Join(cfg.Security, ","))
}

// securityPrefixes start the keys of TLS, authentication and authorization.
var securityPrefixes = []string{"tls", "authentication", "authorization", "superUserRoles", "anonymousUserRole",
	"token", "basicAuth", "brokerClientTls", "brokerClientAuthentication", "brokerClientTrustCerts",
	"brokerServicePortTls", "webServicePortTls", "proxyRoles", "saslJaas", "kinit", "httpMaxRequestHeaderSize"}

func isSecurityKey(k string) bool {
	for _, p := range securityPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// ParseConfig reads Pulsar broker configuration. Keys with an empty value
// keep Pulsar's default and are skipped, but for brokerServicePort and
// webServicePort: empty, they disable that port. Honoured: brokerServicePort,
// webServicePort, bindAddress (listen addresses), advertisedAddress,
// clusterName, maxMessageSize, acknowledgmentAtBatchIndexLevelEnabled,
// subscriptionKeySharedUseConsistentHashing,
// subscriptionKeySharedConsistentHashingReplicaPoints,
// keySharedLookAheadMsgInReplayThresholdPerConsumer and ...PerSubscription,
// managedLedgerMaxEntriesPerLedger, managedLedgerCursorPositionFlushSeconds,
// managedLedgerCacheSizeMB, allowAutoTopicCreation, allowAutoTopicCreationType, defaultNumPartitions,
// keepAliveIntervalSeconds, brokerMaxConnections, brokerMaxConnectionsPerIp,
// pulsarChannelWriteBufferHighWaterMark, pulsarChannelWriteBufferLowWaterMark,
// pulsarChannelPauseReceivingRequestsIfUnwritable,
// httpMaxRequestHeaderSize, delayedDeliveryEnabled,
// delayedDeliveryTickTimeMillis, isDelayedDeliveryDeliverAtTimeStrict,
// delayedDeliveryMaxDelayInMillis,
// schemaCompatibilityStrategy, isAllowAutoUpdateSchemaEnabled,
// isSchemaValidationEnforced, brokerDeduplicationEnabled, transactionCoordinatorEnabled,
// activeConsumerFailoverDelayTimeMillis,
// activeConsumerFailoverConsistentHashing,
// backlogQuotaDefaultLimitBytes,
// backlogQuotaDefaultLimitGB, backlogQuotaDefaultLimitSecond,
// backlogQuotaDefaultRetentionPolicy, backlogQuotaCheckIntervalInSeconds,
// backlogQuotaCheckEnabled (see Options.BacklogQuota),
// ttlDurationDefaultInSeconds, messageExpiryCheckIntervalInMinutes,
// defaultRetentionTimeInMinutes, defaultRetentionSizeInMB and
// retentionCheckIntervalInSeconds; the limits (limits.go, see Limits):
// maxProducersPerTopic, maxConsumersPerTopic, maxConsumersPerSubscription,
// maxSubscriptionsPerTopic, maxTopicsPerNamespace,
// maxNumPartitionsPerPartitionedTopic, maxUnackedMessagesPerConsumer,
// maxUnackedMessagesPerSubscription, allowAutoSubscriptionCreation and
// enableNonPersistentTopics; and security (config_security.go):
// brokerServicePortTls, webServicePortTls, tlsCertificateFilePath,
// tlsKeyFilePath, tlsTrustCertsFilePath,
// tlsRequireTrustedClientCertOnConnect, tlsAllowInsecureConnection,
// authenticationEnabled, authenticationProviders (Pulsar's Token, Tls and
// Basic classes; another is an error), authenticationRefreshCheckSeconds,
// tokenSecretKey, tokenPublicKey, tokenAuthClaim, tokenAudience,
// tokenAudienceClaim, basicAuthConf, anonymousUserRole,
// authorizationEnabled and superUserRoles; TLS from Java key stores
// (tlsEnabledWithKeyStore, tlsKeyStore*, tlsTrustStore*: tls_keystore.go)
// and tlsProtocols, tlsCiphers, webServiceTlsProtocols,
// webServiceTlsCiphers (tls_versions.go); the HTTP limits
// httpMaxRequestSize, httpRequestsLimitEnabled, httpRequestsMaxPerSecond,
// maxConcurrentHttpRequests, maxHttpServerConnections,
// disableHttpDebugMethods (http_limits.go); maxConcurrentLookupRequest,
// maxConcurrentTopicLoadRequest (lookup_limits.go); proxyRoles,
// authenticateOriginalAuthData, authorizationAllowWildcardsMatching
// (proxy_roles.go); haProxyProtocolEnabled,
// webServiceHaProxyProtocolEnabled (proxyproto.go); advertisedListeners,
// internalListenerName, bindAddresses (listeners.go).
// A bad value of an honoured key is an error. Keys that are not honoured
// are classed by brokerstub's census of Pulsar's keys (configkeys.tsv,
// docs/brokerstub-config.md): no effect (Config.NoEffect), not supported
// (Config.Ignored, Config.Security), or unknown: an *UnknownConfigKeyError
// naming the nearest known key (see ParseConfigWith to accept them).
func ParseConfig(r io.Reader) (Config, error) {
	return ParseConfigWith(r, ConfigOptions{})
}

// ParseConfigWith is ParseConfig with options.
func ParseConfigWith(r io.Reader, co ConfigOptions) (Config, error) {
	kv := map[string]string{}
	empty := map[string]bool{} // keys set to "" (for the ports: disabled)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") || strings.HasPrefix(s, "!") {
			continue
		}
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			if k, v, ok = strings.Cut(s, ":"); !ok {
				return Config{}, fmt.Errorf("line %d: want key=value, got %q", line, s)
			}
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if v != "" {
			kv[k] = v
			delete(empty, k)
		} else {
			empty[k] = true
			delete(kv, k)
		}
	}
	if err := sc.Err(); err != nil {
		return Config{}, err
	}
	var cfg Config
	o := &cfg.Options
	p := configParser{kv: kv}
	bind := p.str("bindAddress", "0.0.0.0")
	// An empty brokerServicePort or webServicePort disables that port
	// (Pulsar reads them as Optional<Integer>; apache/pulsar#11681).
	o.DisableBrokerServicePort = empty["brokerServicePort"]
	o.DisableWebServicePort = empty["webServicePort"]
	if v, ok := p.take("brokerServicePort"); ok {
		o.Addr = net.JoinHostPort(bind, v)
		p.port("brokerServicePort", v)
	} else if _, ok := kv["bindAddress"]; ok && !o.DisableBrokerServicePort {
		o.Addr = net.JoinHostPort(bind, "6650")
	}
	if v, ok := p.take("webServicePort"); ok {
		o.HTTPAddr = net.JoinHostPort(bind, v)
		p.port("webServicePort", v)
	} else if _, ok := kv["bindAddress"]; ok && !o.DisableWebServicePort {
		o.HTTPAddr = net.JoinHostPort(bind, "8080")
	}
	p.tls(o, bind)
	p.auth(o)
	o.AdvertisedAddress = p.str("advertisedAddress", "")
	o.ClusterName = p.str("clusterName", "")
	o.MaxMessageSize = int(p.int("maxMessageSize", 0, 1))
	o.DisableBatchIndexAck = !p.bool("acknowledgmentAtBatchIndexLevelEnabled", true)
	o.KeyShared.HashRangeAutoSplit = !p.bool("subscriptionKeySharedUseConsistentHashing", true)
	o.KeyShared.ReplicaPoints = int(p.int("subscriptionKeySharedConsistentHashingReplicaPoints", 0, 1))
	o.KeyShared.LookAheadPerConsumer = int(p.int("keySharedLookAheadMsgInReplayThresholdPerConsumer", 0, -1<<31))
	o.KeyShared.LookAheadPerSubscription = int(p.int("keySharedLookAheadMsgInReplayThresholdPerSubscription", 0, -1<<31))
	o.LedgerRolloverEntries = int(p.int("managedLedgerMaxEntriesPerLedger", 0, 1))
	o.CursorFlushInterval = time.Duration(p.int("managedLedgerCursorPositionFlushSeconds", 0, 1)) * time.Second
	switch mb := p.int("managedLedgerCacheSizeMB", -1, 0); {
	case mb == 0:
		o.EntryCacheSize = -1 // Pulsar's 0: no cache
	case mb > 0:
		o.EntryCacheSize = mb << 20
	}
	o.KeepAliveInterval = time.Duration(p.int("keepAliveIntervalSeconds", 0, 1)) * time.Second
	o.MaxConnections = int(p.int("brokerMaxConnections", 0, 0))
	o.MaxConnectionsPerIP = int(p.int("brokerMaxConnectionsPerIp", 0, 0))
	o.WriteBufferHighWaterMark = int(p.int("pulsarChannelWriteBufferHighWaterMark", 0, 1))
	o.WriteBufferLowWaterMark = int(p.int("pulsarChannelWriteBufferLowWaterMark", 0, 1))
	o.PauseReceivingIfUnwritable = p.bool("pulsarChannelPauseReceivingRequestsIfUnwritable", false)
	o.HTTPMaxHeaderBytes = int(p.int("httpMaxRequestHeaderSize", 0, 1))
	o.DisableDelayedDelivery = !p.bool("delayedDeliveryEnabled", true)
	o.DelayedDeliveryTickTime = time.Duration(p.int("delayedDeliveryTickTimeMillis", 0, 1)) * time.Millisecond
	o.DelayedDeliveryStrict = p.bool("isDelayedDeliveryDeliverAtTimeStrict", false)
	o.DelayedDeliveryMaxDelay = time.Duration(p.int("delayedDeliveryMaxDelayInMillis", 0, 0)) * time.Millisecond
	o.SchemaCompatibilityStrategy = p.str("schemaCompatibilityStrategy", "")
	o.DisableSchemaAutoUpdate = !p.bool("isAllowAutoUpdateSchemaEnabled", true)
	o.SchemaValidationEnforced = p.bool("isSchemaValidationEnforced", false)
	o.BrokerDeduplicationEnabled = p.bool("brokerDeduplicationEnabled", false)
	o.TransactionCoordinatorEnabled = p.bool("transactionCoordinatorEnabled", false)
	if ms := p.int("activeConsumerFailoverDelayTimeMillis", 1000, -1<<31); ms > 0 {
		o.ActiveConsumerFailoverDelay = time.Duration(ms) * time.Millisecond
	} else {
		o.ActiveConsumerFailoverDelay = -1
	}
	o.ActiveConsumerFailoverConsistentHashing = p.bool("activeConsumerFailoverConsistentHashing", false)
	o.DisableAutoTopicCreation = !p.bool("allowAutoTopicCreation", true)
	typ := p.str("allowAutoTopicCreationType", "non-partitioned")
	parts := p.int("defaultNumPartitions", 1, 1)
	switch typ {
	case "non-partitioned":
	case "partitioned":
		o.AutoTopicCreationPartitions = int(parts)
	default:
		p.fail("allowAutoTopicCreationType", typ, "want non-partitioned or partitioned")
	}
	o.MessageTTL = time.Duration(p.int("ttlDurationDefaultInSeconds", 0, 0)) * time.Second
	o.MessageExpiryCheckInterval = time.Duration(p.int("messageExpiryCheckIntervalInMinutes", 0, 1)) * time.Minute
	o.Retention = engine.RetentionPolicy{
		TimeInMinutes: engine.FlexInt(p.int("defaultRetentionTimeInMinutes", 0, -1)),
		SizeInMB:      engine.FlexInt(p.int("defaultRetentionSizeInMB", 0, -1)),
	}.Retention()
	o.RetentionCheckInterval = time.Duration(p.int("retentionCheckIntervalInSeconds", 0, 1)) * time.Second
	o.BacklogQuota.LimitBytes = p.int("backlogQuotaDefaultLimitBytes", -1, -1)
	if gb, ok := kv["backlogQuotaDefaultLimitGB"]; ok {
		p.used("backlogQuotaDefaultLimitGB")
		f, err := strconv.ParseFloat(gb, 64)
		if err != nil {
			p.fail("backlogQuotaDefaultLimitGB", gb, "want a number")
		} else if o.BacklogQuota.LimitBytes <= 0 {
			o.BacklogQuota.LimitBytes = int64(f * (1 << 30))
		}
	}
	o.BacklogQuota.LimitSeconds = p.int("backlogQuotaDefaultLimitSecond", -1, -1)
	o.BacklogQuota.Policy = p.str("backlogQuotaDefaultRetentionPolicy", "")
	o.BacklogQuota.CheckInterval = time.Duration(p.int("backlogQuotaCheckIntervalInSeconds", 0, 1)) * time.Second
	if !p.bool("backlogQuotaCheckEnabled", true) {
		o.BacklogQuota.CheckInterval = -1
	}
	p.limits(o)       // limits.go
	p.features(o)     // config_features.go
	p.gates(o)        // gates.go
	p.rates(o)        // ratelimit.go
	p.httpLimits(o)   // http_limits.go
	p.lookupLimits(o) // lookup_limits.go
	p.proxyRoles(o)   // proxy_roles.go
	p.haProxy(o)      // proxyproto.go
	p.listeners(o)    // listeners.go
	p.lifecycle(o)    // lifecycle.go
	if p.err != nil {
		return Config{}, p.err
	}
	if err := cfg.classify(kv, p.seen, co); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// configParser reads typed values, remembering the keys it used and the
// first bad value.
type configParser struct {
	kv   map[string]string
	seen map[string]bool
	err  error
}

func (p *configParser) used(k string) {
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	p.seen[k] = true
}

func (p *configParser) take(k string) (string, bool) {
	v, ok := p.kv[k]
	if ok {
		p.used(k)
	}
	return v, ok
}

func (p *configParser) fail(k, v, why string) {
	if p.err == nil {
		p.err = fmt.Errorf("%s=%s: %s", k, v, why)
	}
}

func (p *configParser) failErr(k, v string, err error) {
	if p.err == nil {
		p.err = fmt.Errorf("%s=%s: %w", k, v, err)
	}
}

func (p *configParser) str(k, def string) string {
	if v, ok := p.take(k); ok {
		return v
	}
	return def
}

func (p *configParser) bool(k string, def bool) bool {
	v, ok := p.take(k)
	if !ok {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		p.fail(k, v, "want true or false")
		return def
	}
	return b
}

func (p *configParser) int(k string, def, minimum int64) int64 {
	v, ok := p.take(k)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < minimum || n > 1<<31-1 && k != "backlogQuotaDefaultLimitBytes" {
		p.fail(k, v, fmt.Sprintf("want an integer >= %d", minimum))
		return def
	}
	return n
}

func (p *configParser) port(k, v string) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 65535 {
		p.fail(k, v, "want a port number")
	}
}
