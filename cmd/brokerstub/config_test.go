package main

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/brokerstub"
)

// TestServerConfigFile starts the server from a Pulsar config file: the
// honoured keys take effect, a flag overrides the file, and the keys without
// effect are named in one warning.
func TestServerConfigFile(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "standalone.conf")
	err := os.WriteFile(conf, []byte(strings.Join([]string{
		"# a comment",
		"brokerServicePort=0",
		"webServicePort=0",
		"bindAddress=127.0.0.1",
		"clusterName=mycluster",
		"maxMessageSize=1048576",
		"managedLedgerMaxEntriesPerLedger=10",
		"bookkeeperClientTimeoutInSeconds=30",
		"tlsEnabled=true",
		"webSocketServiceEnabled=true",
		"emptyKey=",
		"",
	}, "\n")), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	s := startRun(t, "-config", conf, "-http-addr", "127.0.0.1:0")
	if got := handshake(t, strings.TrimPrefix(s.url, "pulsar://")).GetMaxMessageSize(); got != 1<<20 {
		t.Errorf("max_message_size = %d, want the file's 1048576", got)
	}
	resp, err := http.Get(s.web + "/admin/v2/clusters")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != `["mycluster"]` {
		t.Errorf("clusters = %s, want the file's clusterName", body)
	}
	logs := s.stderr.String()
	// Every key a client can observe is honoured: nothing to warn about.
	if n := strings.Count(logs, "config keys without effect"); n != 0 {
		t.Errorf("%d warnings about config keys, want none:\n%s", n, logs)
	}
	if strings.Contains(logs, "emptyKey") || strings.Contains(logs, "maxMessageSize,") ||
		strings.Contains(logs, "bookkeeperClientTimeoutInSeconds") {
		t.Errorf("warning names a key that is empty, honoured or without effect:\n%s", logs)
	}
	_ = s.stop(t)

	// A flag given on the command line wins over the file.
	s = startRun(t, "-config", conf, "-max-message-size", "2048")
	if got := handshake(t, strings.TrimPrefix(s.url, "pulsar://")).GetMaxMessageSize(); got != 2048 {
		t.Errorf("max_message_size = %d, want the flag's 2048", got)
	}
}

// TestServerConfigUnknownKey checks that -config refuses a key in no class
// of the census, naming the nearest known key and the flag that accepts it,
// and that -ignore-unknown-config-keys accepts it with a warning.
func TestServerConfigUnknownKey(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "broker.conf")
	if err := os.WriteFile(conf, []byte("clusterName=c\nmaxConsumerPerSubscription=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	_, err := parseFlags([]string{"-config", conf}, &stderr)
	var ue usageError
	if !errors.As(err, &ue) || !errors.Is(err, brokerstub.ErrUnknownConfigKey) {
		t.Fatalf("err = %v, want a usageError for an unknown key", err)
	}
	for _, want := range []string{"maxConsumerPerSubscription", "did you mean maxConsumersPerSubscription", "-ignore-unknown-config-keys"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %q, want it to contain %q", err, want)
		}
	}
	cfg, err := parseFlags([]string{"-config", conf, "-ignore-unknown-config-keys"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.file.Unknown, ",") != "maxConsumerPerSubscription" || cfg.opts.ClusterName != "c" {
		t.Errorf("-ignore-unknown-config-keys: Unknown %v, ClusterName %q", cfg.file.Unknown, cfg.opts.ClusterName)
	}
}
