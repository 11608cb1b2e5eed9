package brokerstub

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestConfigJavaPluginsRefused: a key naming a Java plugin or service is
// refused with ErrJavaPlugin and a message that says what to do; Pulsar's
// default values are accepted.
func TestConfigJavaPluginsRefused(t *testing.T) {
	for _, kv := range []string{
		"functionsWorkerEnabled=true",
		"entryFilterNames=my-filter",
		"entryFiltersDirectory=./entryFilters",
		"allowOverrideEntryFilters=true",
		"topicFactoryClassName=com.example.MyTopicFactory",
		"authorizationProvider=org.apache.pulsar.broker.authorization.MultiRolesTokenAuthorizationProvider",
	} {
		_, err := ParseConfig(strings.NewReader(kv + "\n"))
		if !errors.Is(err, ErrJavaPlugin) {
			t.Errorf("%s: err = %v, want ErrJavaPlugin", kv, err)
			continue
		}
		key, _, _ := strings.Cut(kv, "=")
		for _, want := range []string{key, "cannot load Java classes", "remove the key", "real Pulsar"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q lacks %q", kv, err, want)
			}
		}
	}
	cfg, err := ParseConfig(strings.NewReader("functionsWorkerEnabled=false\nallowOverrideEntryFilters=false\n" +
		"authorizationProvider=" + defaultAuthorizationProvider + "\nentryFilterNames=\n"))
	if err != nil || len(cfg.Ignored)+len(cfg.Security) != 0 {
		t.Errorf("defaults: err %v, ignored %v %v", err, cfg.Ignored, cfg.Security)
	}
}

func TestConfigCompactionKeys(t *testing.T) {
	cfg, err := ParseConfig(strings.NewReader("brokerServiceCompactionThresholdInBytes=5000000000\n" +
		"brokerServiceCompactionMonitorIntervalInSeconds=7\nbrokerServiceCompactionPhaseOneLoopTimeInSeconds=30\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c := cfg.Options.Compaction; c.ThresholdBytes != 5_000_000_000 || c.MonitorInterval != 7*time.Second {
		t.Errorf("Compaction = %+v", c)
	}
	if _, err := ParseConfig(strings.NewReader("brokerServiceCompactionThresholdInBytes=-1\n")); err == nil {
		t.Error("a negative threshold is accepted")
	}
}
