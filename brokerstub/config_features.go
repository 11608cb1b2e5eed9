package brokerstub

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ErrJavaPlugin is wrapped by the error ParseConfig returns for a key that
// names a Java plugin or service brokerstub cannot run (an entry filter, a
// topic factory, an authorization provider other than Pulsar's, the
// Functions worker): brokerstub cannot load Java classes.
var ErrJavaPlugin = errors.New("brokerstub cannot load Java classes")

// defaultAuthorizationProvider is Pulsar's authorizationProvider default,
// whose rules brokerstub implements.
const defaultAuthorizationProvider = "org.apache.pulsar.broker.authorization.PulsarAuthorizationProvider"

// features reads the keys of compaction and the WebSocket API, and
// refuses those of Java plugins.
func (p *configParser) features(o *Options) {
	if v, ok := p.take("brokerServiceCompactionThresholdInBytes"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			p.fail("brokerServiceCompactionThresholdInBytes", v, "want an integer >= 0 (0: no automatic compaction)")
		}
		o.Compaction.ThresholdBytes = n
	}
	o.Compaction.MonitorInterval = time.Duration(p.int("brokerServiceCompactionMonitorIntervalInSeconds", 0, 1)) * time.Second
	o.WebSocket.Enabled = p.bool("webSocketServiceEnabled", false)
	o.WebSocket.MaxTextFrameSize = int(p.int("webSocketMaxTextFrameSize", 1<<20, 1))
	o.WebSocket.SessionIdleTimeout = time.Duration(p.int("webSocketSessionIdleTimeoutMillis", 300_000, 1)) * time.Millisecond
	o.Packages.Enabled = p.bool("enablePackagesManagement", false)
	o.BacklogScan.MaxEntries = int(p.int("subscriptionBacklogScanMaxEntries", 10_000, 1))
	o.BacklogScan.MaxTime = time.Duration(p.int("subscriptionBacklogScanMaxTimeMs", 120_000, 1)) * time.Millisecond
	p.javaPlugins()
}

// javaPlugins refuses a value other than Pulsar's default for the keys that
// load Java classes; the default is accepted (it loads nothing, or the
// provider brokerstub implements).
func (p *configParser) javaPlugins() {
	refuse := func(k, v, what string) {
		p.failErr(k, v, fmt.Errorf("%w: %s; remove the key (or set it to Pulsar's default) to test against "+
			"brokerstub, and test the plugin against a real Pulsar", ErrJavaPlugin, what))
	}
	if p.bool("functionsWorkerEnabled", false) {
		refuse("functionsWorkerEnabled", "true", "it does not run the Pulsar Functions worker "+
			"(the functions, sources and sinks admin API answer as Pulsar's with the worker disabled)")
	}
	for _, k := range []string{"entryFilterNames", "entryFiltersDirectory"} {
		if v, ok := p.take(k); ok {
			refuse(k, v, "it runs no entry filter")
		}
	}
	if p.bool("allowOverrideEntryFilters", false) {
		refuse("allowOverrideEntryFilters", "true", "it runs no entry filter, so none can be overridden")
	}
	if v, ok := p.take("topicFactoryClassName"); ok {
		refuse("topicFactoryClassName", v, "its topics are its own, not a topic factory's")
	}
	if v, ok := p.take("authorizationProvider"); ok && v != defaultAuthorizationProvider {
		refuse("authorizationProvider", v, "it implements "+defaultAuthorizationProvider+"'s rules only")
	}
}

// lookupLimits reads maxConcurrentLookupRequest and
// maxConcurrentTopicLoadRequest. brokerstub loads one topic at a time,
// within any topic-load limit of 1 or more; 0 (with which Pulsar would
// queue every topic load for ever) is refused, as is a lookup limit of 0
// (every lookup refused).
func (p *configParser) lookupLimits(o *Options) {
	if n := p.int("maxConcurrentLookupRequest", DefaultMaxConcurrentLookups, 0); n == 0 {
		p.fail("maxConcurrentLookupRequest", "0", "no lookup could succeed; set a number of lookups > 0")
	} else {
		o.MaxConcurrentLookups = int(n)
	}
	if n := p.int("maxConcurrentTopicLoadRequest", 5000, 0); n == 0 {
		p.fail("maxConcurrentTopicLoadRequest", "0", "no topic could load; set a number > 0 (brokerstub loads one topic at a time)")
	}
}
