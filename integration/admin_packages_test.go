package integration

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/pulsar-client-go/pulsaradmin"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin/config"

	"github.com/pulsargo/sdk/brokerstub"
)

// pulsaradmin's Packages() against brokerstub with enablePackagesManagement:
// upload, metadata, versions, list, download, update, delete.
func TestOfficialAdminPackages(t *testing.T) {
	e := newAdminEnv(t, brokerstub.Options{Packages: brokerstub.PackagesOptions{Enabled: true}})
	a, err := pulsaradmin.NewClient(&config.Config{WebServiceURL: e.web, PulsarAPIVersion: config.V3})
	if err != nil {
		t.Fatal(err)
	}
	p := a.Packages()
	dir := t.TempDir()
	src := filepath.Join(dir, "fn.jar")
	if err := os.WriteFile(src, []byte("package bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	const url = "function://public/default/fn@v1"
	if err := p.Upload(url, src, "desc", "me", map[string]string{"k": "v"}); err != nil {
		t.Fatalf("Upload: %v", err)
	}
	m, err := p.GetMetadata(url)
	if err != nil || m.Description != "desc" || m.Contact != "me" || m.Properties["k"] != "v" || m.CreateTime == 0 {
		t.Fatalf("GetMetadata = %+v, %v", m, err)
	}
	if vs, err := p.ListVersions("function://public/default/fn"); err != nil || !slices.Equal(vs, []string{"v1"}) {
		t.Fatalf("ListVersions = %v, %v", vs, err)
	}
	if ps, err := p.List("function", "public/default"); err != nil || !slices.Equal(ps, []string{"function://public/default/fn"}) {
		t.Fatalf("List = %v, %v", ps, err)
	}
	dst := filepath.Join(dir, "out.jar")
	if err := p.Download(url, dst); err != nil {
		t.Fatalf("Download: %v", err)
	}
	if got, _ := os.ReadFile(dst); string(got) != "package bytes" {
		t.Fatalf("downloaded %q", got)
	}
	if err := p.UpdateMetadata(url, "new", "you", nil); err != nil {
		t.Fatalf("UpdateMetadata: %v", err)
	}
	if m, err := p.GetMetadata(url); err != nil || m.Description != "new" {
		t.Fatalf("GetMetadata after update = %+v, %v", m, err)
	}
	if err := p.Delete(url); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := p.GetMetadata(url); err == nil {
		t.Fatal("GetMetadata after Delete succeeded")
	}
}
