package brokerstub

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/admin"
)

const testPkgPath = "/admin/v3/packages/function/public/default/fn"

// uploadPkg uploads data as version v with metadata as pulsaradmin does.
func uploadPkg(t *testing.T, b *Broker, v string, data []byte, meta string) (int, string) {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	mw, _ := w.CreateFormField("metadata")
	_, _ = io.WriteString(mw, meta)
	fw, _ := w.CreateFormFile("file", "fn.jar")
	_, _ = fw.Write(data)
	_ = w.Close()
	req, err := http.NewRequest(http.MethodPost, b.WebServiceURL()+testPkgPath+"/"+v, &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

func TestPackagesAPI(t *testing.T) {
	b := RunT(t, Options{Packages: PackagesOptions{Enabled: true, MaxSize: 1000}})
	if code, out := uploadPkg(t, b, "v1", []byte("jar bytes"), `{"description":"d","properties":{"a":"b"}}`); code != http.StatusNoContent {
		t.Fatalf("upload: %d %s", code, out)
	}
	if code, out := uploadPkg(t, b, "v1", []byte("again"), `{}`); code != http.StatusInternalServerError || !strings.Contains(out, "already exists") {
		t.Fatalf("upload of an existing version: %d %s", code, out)
	}
	if code, out := uploadPkg(t, b, "v2", make([]byte, 1001), `{}`); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("upload over MaxSize: %d %s", code, out)
	}
	if code, out := adminDo(t, b, http.MethodGet, testPkgPath+"/v1", ""); code != 200 || out != "jar bytes" {
		t.Fatalf("download: %d %q", code, out)
	}
	code, out := adminDo(t, b, http.MethodGet, testPkgPath+"/v1/metadata", "")
	var m admin.PackageMetadata
	if code != 200 || json.Unmarshal([]byte(out), &m) != nil || m.Description != "d" || m.Properties["a"] != "b" || m.CreateTime == 0 {
		t.Fatalf("metadata: %d %s", code, out)
	}
	if code, out := adminDo(t, b, http.MethodPut, testPkgPath+"/v1/metadata", `{"description":"new"}`); code != http.StatusNoContent {
		t.Fatalf("update metadata: %d %s", code, out)
	}
	if _, out := adminDo(t, b, http.MethodGet, testPkgPath+"/v1/metadata", ""); !strings.Contains(out, `"description":"new"`) {
		t.Fatalf("metadata after update: %s", out)
	}
	if code, out := adminDo(t, b, http.MethodGet, testPkgPath, ""); code != 200 || out != `["v1"]` {
		t.Fatalf("versions: %d %s", code, out)
	}
	if code, out := adminDo(t, b, http.MethodGet, "/admin/v3/packages/function/public/default", ""); code != 200 || out != `["function://public/default/fn"]` {
		t.Fatalf("packages: %d %s", code, out)
	}
	if code, out := adminDo(t, b, http.MethodGet, "/admin/v3/packages/sink/public/default", ""); code != 200 || out != `[]` {
		t.Fatalf("packages of another type: %d %s", code, out)
	}
	if code, out := adminDo(t, b, http.MethodGet, "/admin/v3/packages/jar/public/default", ""); code != http.StatusPreconditionFailed {
		t.Fatalf("bad type: %d %s", code, out)
	}
	if err := b.Restart(); err != nil {
		t.Fatal(err)
	}
	if code, out := adminDo(t, b, http.MethodGet, testPkgPath+"/v1", ""); code != 200 || out != "jar bytes" {
		t.Fatalf("download after Restart: %d %q", code, out)
	}
	if code, out := adminDo(t, b, http.MethodDelete, testPkgPath+"/v1", ""); code != http.StatusNoContent {
		t.Fatalf("delete: %d %s", code, out)
	}
	if code, _ := adminDo(t, b, http.MethodGet, testPkgPath+"/v1/metadata", ""); code != http.StatusNotFound {
		t.Fatalf("metadata after delete: %d", code)
	}
}

// MaxTotalSize bounds all packages together.
func TestPackagesTotalSize(t *testing.T) {
	b := RunT(t, Options{Packages: PackagesOptions{Enabled: true, MaxSize: 100, MaxTotalSize: 150}})
	if code, out := uploadPkg(t, b, "v1", make([]byte, 100), `{}`); code != http.StatusNoContent {
		t.Fatalf("first: %d %s", code, out)
	}
	if code, out := uploadPkg(t, b, "v2", make([]byte, 100), `{}`); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("past the total: %d %s", code, out)
	}
}

func TestPackagesDisabledIs503(t *testing.T) {
	b := RunT(t, Options{})
	code, out := adminDo(t, b, http.MethodGet, testPkgPath+"/v1/metadata", "")
	if code != http.StatusServiceUnavailable || !strings.Contains(out, "Package Management Service is not enabled in the broker.") {
		t.Fatalf("disabled: %d %s", code, out)
	}
}
