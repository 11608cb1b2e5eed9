package pulsar

import (
	"bytes"
	"context"
	"crypto"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
)

// jwtSigner signs the JWTs of a broker's token provider: HS256 with a
// secret, or RS256 with a private key whose public half the broker has.
type jwtSigner struct {
	alg    string
	secret []byte
	rsaKey *rsa.PrivateKey
}

// provider returns the broker's token provider for the signer's key.
func (s jwtSigner) provider(t *testing.T) brokerstub.AuthenticationProvider {
	t.Helper()
	o := brokerstub.TokenOptions{SecretKey: s.secret}
	if s.rsaKey != nil {
		o = brokerstub.TokenOptions{PublicKey: &s.rsaKey.PublicKey}
	}
	p, err := brokerstub.NewTokenProvider(o)
	require.NoError(t, err)
	return p
}

// sign returns a JWT for role, expiring at exp (zero: no exp claim).
func (s jwtSigner) sign(t *testing.T, role string, exp time.Time) string {
	t.Helper()
	claims := map[string]any{"sub": role}
	if !exp.IsZero() {
		claims["exp"] = exp.Unix()
	}
	return s.signClaims(t, claims)
}

func (s jwtSigner) signClaims(t *testing.T, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signed := enc(map[string]string{"alg": s.alg, "typ": "JWT"}) + "." + enc(claims)
	var sig []byte
	if s.rsaKey != nil {
		d := sha256.Sum256([]byte(signed))
		var err error
		sig, err = rsa.SignPKCS1v15(rand.Reader, s.rsaKey, crypto.SHA256, d[:])
		require.NoError(t, err)
	} else {
		m := hmac.New(sha256.New, s.secret)
		m.Write([]byte(signed))
		sig = m.Sum(nil)
	}
	return signed + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// tokenSigners are the two keys Pulsar's token provider takes:
// tokenSecretKey (HS256) and tokenPublicKey (RS256).
func tokenSigners(t *testing.T) []jwtSigner {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	return []jwtSigner{
		{alg: "HS256", secret: []byte("a secret of thirty-two bytes....")},
		{alg: "RS256", rsaKey: k},
	}
}

// secureBroker is a brokerstub configured as a secured Pulsar: TLS on the
// binary and web ports (a certificate for 127.0.0.1 of ca), the token, TLS
// and basic providers, authorization on with "admin" the super user.
type secureBroker struct {
	*brokerstub.Broker
	ca     *testCA
	signer jwtSigner
	clock  *brokerstub.FakeClock
	admin  string // the super user's token
}

// basicHtpasswd is an htpasswd line for user "basic-user", password
// "password" (openssl passwd -apr1 -salt abcdefgh password).
const basicHtpasswd = "basic-user:$apr1$abcdefgh$FBwExRW4dCc8aL.OvjpIE1\n"

func newSecureBroker(t *testing.T, signer jwtSigner, extra ...func(*brokerstub.Options)) *secureBroker {
	t.Helper()
	ca := newTestCA(t)
	cert, _, _ := ca.issue(t, "127.0.0.1", true)
	clk := brokerstub.NewFakeClock(time.Now())
	basic, err := brokerstub.NewBasicProvider([]byte(basicHtpasswd))
	require.NoError(t, err)
	o := brokerstub.Options{
		TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12,
			ClientCAs: ca.pool, ClientAuth: tls.VerifyClientCertIfGiven},
		TLSAddr:                    "127.0.0.1:0",
		WebServiceTLSAddr:          "127.0.0.1:0",
		AuthenticationEnabled:      true,
		AuthenticationProviders:    []brokerstub.AuthenticationProvider{signer.provider(t), brokerstub.NewTLSProvider(), basic},
		AuthenticationRefreshCheck: time.Second,
		AuthorizationEnabled:       true,
		SuperUserRoles:             []string{"admin"},
		Clock:                      clk,
	}
	for _, f := range extra {
		f(&o)
	}
	b := brokerstub.RunT(t, o)
	return &secureBroker{Broker: b, ca: ca, signer: signer, clock: clk, admin: signer.sign(t, "admin", time.Time{})}
}

// adminDo sends an admin request as the super user over https and fails
// the test unless it succeeds.
func (b *secureBroker) adminDo(t *testing.T, method, path string, body any) {
	t.Helper()
	status, text := b.adminAs(t, b.admin, method, path, body)
	require.Less(t, status, 300, "%s %s: %d %s", method, path, status, text)
}

// adminAs sends an admin request with token (none when "") and returns the
// status and body.
func (b *secureBroker) adminAs(t *testing.T, token, method, path string, body any) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, b.WebServiceTLSURL()+path, rd)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: b.ca.pool, MinVersion: tls.VersionTLS12}}}
	defer hc.CloseIdleConnections()
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	text, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, string(text)
}

// grant opens namespace ns of a new tenant to role with actions.
func (b *secureBroker) grant(t *testing.T, ns, role string, actions ...string) {
	t.Helper()
	if actions == nil {
		actions = []string{}
	}
	b.adminDo(t, http.MethodPost, fmt.Sprintf("/admin/v2/namespaces/%s/permissions/%s", ns, role), actions)
}

// newNamespace creates tenant/ns on the broker's cluster.
func (b *secureBroker) newNamespace(t *testing.T, ns string) {
	t.Helper()
	tenant := ns[:bytes.IndexByte([]byte(ns), '/')]
	status, _ := b.adminAs(t, b.admin, http.MethodGet, "/admin/v2/tenants/"+tenant, nil)
	if status == http.StatusNotFound {
		b.adminDo(t, http.MethodPut, "/admin/v2/tenants/"+tenant, map[string]any{"adminRoles": []string{}, "allowedClusters": []string{"standalone"}})
	}
	b.adminDo(t, http.MethodPut, "/admin/v2/namespaces/"+ns, map[string]any{})
}

// client returns a pulsargo client over pulsar+ssl with the test CA and
// auth, closed at the end of the test.
func (b *secureBroker) client(t *testing.T, auth Authentication, edit ...func(*ClientOptions)) Client {
	t.Helper()
	o := ClientOptions{URL: b.TLSURL(), TLSTrustCertsFilePath: b.ca.file, TLSValidateHostname: true,
		Authentication: auth, OperationTimeout: 5 * time.Second, ConnectionTimeout: 5 * time.Second}
	for _, f := range edit {
		f(&o)
	}
	c, err := NewClient(o)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}
