package brokerstub

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAdminParseConfig(t *testing.T) {
	conf := `# Pulsar standalone
brokerServicePort=6650
webServicePort=8080
bindAddress=0.0.0.0
advertisedAddress=localhost
clusterName=standalone
maxMessageSize=1048576
acknowledgmentAtBatchIndexLevelEnabled=false
subscriptionKeySharedUseConsistentHashing=false
managedLedgerMaxEntriesPerLedger=100
managedLedgerCursorPositionFlushSeconds=5
managedLedgerCacheSizeMB=128
keepAliveIntervalSeconds=10
brokerMaxConnections=100
brokerMaxConnectionsPerIp=10
pulsarChannelWriteBufferHighWaterMark=131072
pulsarChannelWriteBufferLowWaterMark=65536
httpMaxRequestHeaderSize=16384
allowAutoTopicCreation=true
allowAutoTopicCreationType=partitioned
defaultNumPartitions=3
backlogQuotaDefaultLimitGB=10
backlogQuotaDefaultRetentionPolicy=producer_exception
tlsEnabled=true
saslJaasClientAllowedIds=.*
bookkeeperClientTimeoutInSeconds=30
zookeeperServers=
webSocketServiceEnabled=true
enablePackagesManagement=true
`
	cfg, err := ParseConfig(strings.NewReader(conf))
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.Options
	checks := []struct {
		name      string
		got, want any
	}{
		{"Addr", o.Addr, "0.0.0.0:6650"},
		{"HTTPAddr", o.HTTPAddr, "0.0.0.0:8080"},
		{"AdvertisedAddress", o.AdvertisedAddress, "localhost"},
		{"ClusterName", o.ClusterName, "standalone"},
		{"MaxMessageSize", o.MaxMessageSize, 1 << 20},
		{"DisableBatchIndexAck", o.DisableBatchIndexAck, true},
		{"HashRangeAutoSplit", o.KeyShared.HashRangeAutoSplit, true},
		{"LedgerRolloverEntries", o.LedgerRolloverEntries, 100},
		{"CursorFlushInterval", o.CursorFlushInterval, 5 * time.Second},
		{"EntryCacheSize", o.EntryCacheSize, int64(128 << 20)},
		{"KeepAliveInterval", o.KeepAliveInterval, 10 * time.Second},
		{"MaxConnections", o.MaxConnections, 100},
		{"MaxConnectionsPerIP", o.MaxConnectionsPerIP, 10},
		{"WriteBufferHighWaterMark", o.WriteBufferHighWaterMark, 128 << 10},
		{"WriteBufferLowWaterMark", o.WriteBufferLowWaterMark, 64 << 10},
		{"HTTPMaxHeaderBytes", o.HTTPMaxHeaderBytes, 16 << 10},
		{"DisableBrokerServicePort", o.DisableBrokerServicePort, false},
		{"AutoTopicCreationPartitions", o.AutoTopicCreationPartitions, 3},
		{"BacklogQuota.LimitBytes", o.BacklogQuota.LimitBytes, int64(10 << 30)},
		{"BacklogQuota.Policy", o.BacklogQuota.Policy, "producer_exception"},
		{"WebSocket.Enabled", o.WebSocket.Enabled, true},
		{"Packages.Enabled", o.Packages.Enabled, true},
		{"Ignored", cfg.Ignored, []string(nil)},   // every key a client observes is honoured now
		{"Security", cfg.Security, []string(nil)}, // and every security key
		{"NoEffect", cfg.NoEffect, []string{"bookkeeperClientTimeoutInSeconds", "saslJaasClientAllowedIds", "tlsEnabled"}},
	}
	for _, c := range checks {
		if gs, ok := c.got.([]string); ok {
			if !slices.Equal(gs, c.want.([]string)) {
				t.Errorf("%s = %v, want %v", c.name, gs, c.want)
			}
			continue
		}
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// Pulsar's 0 turns the cache off; absent keeps the default.
	if cfg, err := ParseConfig(strings.NewReader("managedLedgerCacheSizeMB=0")); err != nil || cfg.Options.EntryCacheSize != -1 {
		t.Errorf("managedLedgerCacheSizeMB=0: EntryCacheSize %d, %v; want -1", cfg.Options.EntryCacheSize, err)
	}
	if cfg, err := ParseConfig(strings.NewReader("clusterName=x")); err != nil || cfg.Options.EntryCacheSize != 0 {
		t.Errorf("no managedLedgerCacheSizeMB: EntryCacheSize %d, %v; want 0 (the default)", cfg.Options.EntryCacheSize, err)
	}
	for _, bad := range []string{"maxMessageSize=big", "managedLedgerCacheSizeMB=-5", "allowAutoTopicCreationType=sometimes", "webServicePort=99999", "acknowledgmentAtBatchIndexLevelEnabled=yes please", "no separator",
		"brokerMaxConnections=-1", "pulsarChannelWriteBufferHighWaterMark=0"} {
		if _, err := ParseConfig(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseConfig(%q) succeeded", bad)
		}
	}
}

// TestAdminLoadConfigStartsBroker starts a broker from a config file and
// checks the config reaches the admin API and the partitioned-topic rule.
func TestAdminLoadConfigStartsBroker(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broker.conf")
	if err := os.WriteFile(path, []byte("bindAddress=127.0.0.1\nbrokerServicePort=0\nwebServicePort=0\nclusterName=c1\nallowAutoTopicCreationType=partitioned\ndefaultNumPartitions=2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	b := RunT(t, o)
	if code, body := adminDo(t, b, "GET", "/admin/v2/clusters", ""); code != 200 || body != `["c1"]` {
		t.Errorf("clusters = %d %s", code, body)
	}
	code, body := adminDo(t, b, "GET", "/admin/v2/persistent/public/default/auto/partitions?checkAllowAutoCreation=true", "")
	if code != 200 || !strings.Contains(body, `"partitions":2`) {
		t.Errorf("auto-created partitions = %d %s, want 2", code, body)
	}
	if _, err := LoadConfig(filepath.Join(t.TempDir(), "missing.conf")); err == nil {
		t.Error("LoadConfig of a missing file succeeded")
	}
}
