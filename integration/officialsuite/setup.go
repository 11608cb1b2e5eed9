package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// adminStep is one admin REST call of the official CI's set-up.
type adminStep struct {
	method, path, body string
}

// adminSetup is what the official CI's scripts/pulsar-test-service-start.sh
// does with pulsar-admin before the tests: the public tenant's admin role,
// produce/consume for anonymous on public/default, and the private/auth
// namespace with produce/consume for token-principal.
var adminSetup = []adminStep{
	{http.MethodPost, "/admin/v2/tenants/public", `{"adminRoles":["anonymous"],"allowedClusters":["standalone"]}`},
	{http.MethodPost, "/admin/v2/namespaces/public/default/permissions/anonymous", `["produce","consume"]`},
	{http.MethodPut, "/admin/v2/tenants/private", `{"adminRoles":[],"allowedClusters":["standalone"]}`},
	{http.MethodPut, "/admin/v2/namespaces/private/auth", `{}`},
	{http.MethodPost, "/admin/v2/namespaces/private/auth/permissions/token-principal", `["produce","consume"]`},
}

// setupAdmin makes the adminSetup calls against the web service at base,
// as the super user of the token in tokenFile (the stub authenticates
// admin calls as the official conf enables).
func setupAdmin(base, tokenFile string) error {
	tok, err := os.ReadFile(tokenFile)
	if err != nil {
		return err
	}
	hc := &http.Client{Timeout: 10 * time.Second}
	for _, s := range adminSetup {
		req, err := http.NewRequest(s.method, base+s.path, bytes.NewBufferString(s.body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
		resp, err := hc.Do(req)
		if err != nil {
			return fmt.Errorf("%s %s: %w", s.method, s.path, err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		_ = resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("%s %s: %s: %s", s.method, s.path, resp.Status, body)
		}
	}
	return nil
}
