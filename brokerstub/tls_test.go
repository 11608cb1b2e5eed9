package brokerstub

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

func lookupRaw(c *rawClient, topic string) *proto.CommandLookupTopicResponse {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_LOOKUP.Enum(), LookupTopic: &proto.CommandLookupTopic{
		Topic: gproto.String(topic), RequestId: gproto.Uint64(1)}})
	return c.expect(proto.BaseCommand_LOOKUP_RESPONSE).GetLookupTopicResponse()
}

func TestTLSPortsBesidePlainOnes(t *testing.T) {
	pki := newTestPKI(t)
	b := RunT(t, Options{TLS: pki.serverConfig(), TLSAddr: "127.0.0.1:0", WebServiceTLSAddr: "127.0.0.1:0"})
	if !strings.HasPrefix(b.URL(), "pulsar://") || !strings.HasPrefix(b.TLSURL(), "pulsar+ssl://") {
		t.Fatalf("URL %s, TLSURL %s", b.URL(), b.TLSURL())
	}
	plain := dialRaw(t, b)
	plain.connect()
	secure := dialRawTLS(t, b, pki.clientConfig())
	secure.connect()
	for _, c := range []*rawClient{plain, secure} {
		r := lookupRaw(c, "persistent://public/default/t")
		if r.GetBrokerServiceUrl() != b.URL() || r.GetBrokerServiceUrlTls() != b.TLSURL() {
			t.Fatalf("lookup: %v", r)
		}
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: pki.clientConfig()}}
	for _, base := range []string{b.WebServiceURL(), b.WebServiceTLSURL()} {
		resp, err := hc.Get(base + "/admin/v2/clusters")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), "standalone") {
			t.Fatalf("%s: %d %s", base, resp.StatusCode, body)
		}
	}
	if !strings.HasPrefix(b.WebServiceTLSURL(), "https://") {
		t.Fatalf("WebServiceTLSURL %s", b.WebServiceTLSURL())
	}
	tlsURL := b.TLSURL()
	if err := b.Restart(); err != nil {
		t.Fatal(err)
	}
	if b.TLSURL() != tlsURL {
		t.Fatalf("TLS URL after restart %s, want %s", b.TLSURL(), tlsURL)
	}
	dialRawTLS(t, b, pki.clientConfig()).connect()
}

// handshake dials the TLS port and reports the first error of the
// handshake or of the first read (TLS 1.3 reports a refused client
// certificate only then).
func handshake(b *Broker, cfg *tls.Config) error {
	nc, err := tls.Dial("tcp", strings.TrimPrefix(b.TLSURL(), "pulsar+ssl://"), cfg)
	if err != nil {
		return err
	}
	defer nc.Close()
	if _, err := nc.Write(mustConnectFrame()); err != nil {
		return err
	}
	buf := make([]byte, 1)
	_, err = nc.Read(buf)
	return err
}

func mustConnectFrame() []byte {
	f, err := wire.AppendCommand(nil, &proto.BaseCommand{Type: proto.BaseCommand_CONNECT.Enum(), Connect: &proto.CommandConnect{
		ClientVersion: gproto.String("raw-test"), ProtocolVersion: gproto.Int32(20)}})
	if err != nil {
		panic(err)
	}
	return f
}

func TestTLSRefusesUntrustedClientCertificate(t *testing.T) {
	pki := newTestPKI(t)
	other := newTestPKI(t)
	b := RunT(t, Options{TLS: pki.serverConfig(), TLSAddr: "127.0.0.1:0"})
	if err := handshake(b, pki.clientConfig(pki.client("alice"))); err != nil {
		t.Fatalf("trusted client certificate: %v", err)
	}
	if err := handshake(b, pki.clientConfig()); err != nil {
		t.Fatalf("no client certificate (allowed unless required): %v", err)
	}
	if err := handshake(b, pki.clientConfig(other.client("mallory"))); err == nil {
		t.Fatal("a client certificate of another CA was accepted")
	}
}

func TestTLSFilesRequireTrustedClientCert(t *testing.T) {
	pki := newTestPKI(t)
	files := pki.writeFiles()
	files.RequireTrustedClientCert = true
	cfg, err := files.Config()
	if err != nil {
		t.Fatal(err)
	}
	b := RunT(t, Options{TLS: cfg, TLSAddr: "127.0.0.1:0"})
	if err := handshake(b, pki.clientConfig()); err == nil {
		t.Fatal("no client certificate accepted with tlsRequireTrustedClientCertOnConnect")
	}
	if err := handshake(b, pki.clientConfig(pki.client("alice"))); err != nil {
		t.Fatalf("trusted client certificate: %v", err)
	}
}

func TestConfigTLSKeys(t *testing.T) {
	pki := newTestPKI(t)
	f := pki.writeFiles()
	conf := fmt.Sprintf("brokerServicePort=0\nbrokerServicePortTls=0\nwebServicePortTls=0\nbindAddress=127.0.0.1\n"+
		"tlsCertificateFilePath=%s\ntlsKeyFilePath=%s\ntlsTrustCertsFilePath=%s\ntlsRequireTrustedClientCertOnConnect=true\ntlsEnabled=true\n",
		f.CertFile, f.KeyFile, f.TrustCertsFile)
	cfg, err := ParseConfig(strings.NewReader(conf))
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.Options
	if o.TLS == nil || o.TLSAddr != "127.0.0.1:0" || o.WebServiceTLSAddr != "127.0.0.1:0" || o.TLS.ClientAuth != tls.RequireAndVerifyClientCert {
		t.Fatalf("options: TLS %v, TLSAddr %q, WebServiceTLSAddr %q", o.TLS != nil, o.TLSAddr, o.WebServiceTLSAddr)
	}
	// tlsEnabled is deprecated: Pulsar serves TLS on the TLS ports alone.
	if len(cfg.Security) != 0 || strings.Join(cfg.NoEffect, ",") != "tlsEnabled" {
		t.Fatalf("security keys not implemented: %v, without effect: %v", cfg.Security, cfg.NoEffect)
	}
	b := RunT(t, o)
	if err := handshake(b, pki.clientConfig(pki.client("alice"))); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		"brokerServicePortTls=6651\n",
		"brokerServicePortTls=6651\ntlsCertificateFilePath=/nonexistent/cert.pem\ntlsKeyFilePath=/nonexistent/key.pem\n",
		fmt.Sprintf("brokerServicePortTls=6651\ntlsCertificateFilePath=%s\ntlsKeyFilePath=%s\ntlsTrustCertsFilePath=%s\n", f.CertFile, f.KeyFile, f.KeyFile),
	} {
		_, err := ParseConfig(strings.NewReader(bad))
		if err == nil {
			t.Fatalf("config %q accepted", bad)
		}
		if strings.Contains(bad, "/nonexistent") && !errors.Is(err, errTLSConfig) {
			t.Fatalf("config %q: %v, want errTLSConfig", bad, err)
		}
	}
}
