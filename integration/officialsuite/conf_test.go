package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/brokerstub"
)

// TestOfficialConfLoads checks that the official CI's standalone.conf, as
// writeConf prepares it, is read by brokerstub without an unknown key (the
// stub refuses those), and shows which of its keys the stub does not
// implement.
func TestOfficialConfLoads(t *testing.T) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", strings.Split(officialModule, "@")[0])
	cmd.Env = goEnv()
	out, err := cmd.Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skipf("the official client's module is not in the module cache: %v", err)
	}
	conf, err := writeConf(dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := brokerstub.LoadConfig(conf)
	if err != nil {
		t.Fatalf("brokerstub.LoadConfig(official standalone.conf): %v", err)
	}
	if cfg.ClusterName != "standalone" || cfg.TLS == nil || len(cfg.AuthenticationProviders) == 0 {
		t.Errorf("official conf: cluster %q, TLS %v, %d auth providers", cfg.ClusterName, cfg.TLS != nil, len(cfg.AuthenticationProviders))
	}
}
