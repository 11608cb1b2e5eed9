package main

import (
	"io"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/brokerstub"
)

// TestEmptyPortsDisablePlaintext: an empty brokerServicePort or
// webServicePort in the config, or an empty -addr or -http-addr, opens no
// plaintext port (apache/pulsar#11681); a flag given wins over the file.
func TestEmptyPortsDisablePlaintext(t *testing.T) {
	conf := writeTLSConf(t, "brokerServicePort=\nwebServicePort=\nbrokerServicePortTls=0\nwebServicePortTls=0\n")
	cases := []struct {
		args             []string
		noBinary, noHTTP bool
		wantErr          string
	}{
		{args: []string{"-config", conf, "-tls-addr", "127.0.0.1:0", "-https-addr", "127.0.0.1:0"}, noBinary: true, noHTTP: true},
		{args: []string{"-config", conf, "-tls-addr", "127.0.0.1:0", "-addr", "127.0.0.1:0"}, noHTTP: true},
		{args: []string{"-http-addr="}, noHTTP: true},
		{args: []string{"-addr="}, wantErr: "no binary port"},
	}
	for _, tc := range cases {
		cfg, err := parseFlags(tc.args, io.Discard)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: err %v, want %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if cfg.opts.DisableBrokerServicePort != tc.noBinary || cfg.opts.DisableWebServicePort != tc.noHTTP {
			t.Errorf("%q: binary port disabled %v, HTTP port disabled %v; want %v, %v", tc.args,
				cfg.opts.DisableBrokerServicePort, cfg.opts.DisableWebServicePort, tc.noBinary, tc.noHTTP)
		}
	}
	cfg, err := parseFlags(cases[0].args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	b, err := brokerstub.Start(cfg.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Addr() != "" || b.WebServiceURL() != "" || !strings.HasPrefix(b.URL(), "pulsar+ssl://") {
		t.Fatalf("with both plaintext ports empty: addr %q, web %q, url %q; want no plaintext port", b.Addr(), b.WebServiceURL(), b.URL())
	}
}
