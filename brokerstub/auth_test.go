package brokerstub

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

func mustProvider(t testing.TB, o TokenOptions) AuthenticationProvider {
	t.Helper()
	p, err := NewTokenProvider(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTokenAuthenticationOnConnect(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	clk := NewFakeClock(time.Unix(1_800_000_000, 0))
	tok := mustProvider(t, TokenOptions{SecretKey: secret})
	b := RunT(t, Options{AuthenticationEnabled: true, AuthenticationProviders: []AuthenticationProvider{tok}, Clock: clk})
	now := clk.Now().Unix()
	if c := dialRaw(t, b).connectWith("token", []byte(hs256(t, secret, jwtClaims{"sub": "alice"}))); c.GetType() != proto.BaseCommand_CONNECTED {
		t.Fatalf("valid token: %v", c)
	}
	if c := dialRaw(t, b).connectWith("token", []byte(hs256(t, secret, jwtClaims{"sub": "alice", "exp": now + 60}))); c.GetType() != proto.BaseCommand_CONNECTED {
		t.Fatalf("token expiring later: %v", c)
	}
	none := jwtSigningInput(t, "none", jwtClaims{"sub": "alice"}) + "."
	for what, data := range map[string]string{
		"expired token":     hs256(t, secret, jwtClaims{"sub": "alice", "exp": now - 1}),
		"other secret":      hs256(t, []byte("another secret, 32 bytes long..."), jwtClaims{"sub": "alice"}),
		"alg none":          none,
		"no sub":            hs256(t, secret, jwtClaims{"role": "alice"}),
		"not a jwt":         "garbage",
		"bad base64":        "a.b!.c",
		"tampered claims":   strings.Replace(hs256(t, secret, jwtClaims{"sub": "alice"}), ".", ".x", 1),
		"oversized":         strings.Repeat("a", maxAuthData+1),
		"sub not a string":  hs256(t, secret, jwtClaims{"sub": 42}),
		"exp not a number":  hs256(t, secret, jwtClaims{"sub": "alice", "exp": "soon"}),
		"exp out of range":  hs256(t, secret, jwtClaims{"sub": "alice", "exp": 1e300}),
		"no credentials":    "",
		"unknown method":    "x",
		"empty three parts": "..",
	} {
		method := "token"
		switch what {
		case "no credentials":
			method = ""
		case "unknown method":
			method = "kerberos"
		}
		wantAuthError(t, what, dialRaw(t, b).connectWith(method, []byte(data)))
	}
}

func TestAnonymousRoleWithoutCredentials(t *testing.T) {
	tok := mustProvider(t, TokenOptions{SecretKey: []byte("k")})
	b := RunT(t, Options{AuthenticationEnabled: true, AuthenticationProviders: []AuthenticationProvider{tok}, AnonymousUserRole: "anon"})
	if c := dialRaw(t, b).connectWith("", nil); c.GetType() != proto.BaseCommand_CONNECTED {
		t.Fatalf("anonymous: %v", c)
	}
	// A bad token is refused even with an anonymous role.
	wantAuthError(t, "bad token", dialRaw(t, b).connectWith("token", []byte("a.b.c")))
}

func TestTokenPublicKeys(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		pub          any
		good, forged string
	}{
		"RS256": {&rsaKey.PublicKey, rs256(t, rsaKey, jwtClaims{"sub": "alice"}), hs256(t, x509.MarshalPKCS1PublicKey(&rsaKey.PublicKey), jwtClaims{"sub": "alice"})},
		"ES256": {&ecKey.PublicKey, es256(t, ecKey, jwtClaims{"sub": "alice"}), rs256(t, rsaKey, jwtClaims{"sub": "alice"})},
	} {
		der, err := x509.MarshalPKIXPublicKey(c.pub)
		if err != nil {
			t.Fatal(err)
		}
		// As Pulsar's tokenPublicKey=data:;base64,<DER>.
		raw, err := ReadTokenKey("data:;base64," + base64.StdEncoding.EncodeToString(der))
		if err != nil {
			t.Fatal(err)
		}
		pub, err := ParseTokenPublicKey(raw)
		if err != nil {
			t.Fatal(err)
		}
		p := mustProvider(t, TokenOptions{PublicKey: pub})
		if id, err := p.Authenticate(AuthenticationData{Data: []byte(c.good)}); err != nil || id.Role != "alice" {
			t.Fatalf("%s: %v %v", name, id, err)
		}
		if _, err := p.Authenticate(AuthenticationData{Data: []byte(c.forged)}); !errors.Is(err, ErrAuthentication) {
			t.Fatalf("%s: forged token: %v", name, err)
		}
	}
}

func TestTokenAuthClaimAndKeyFile(t *testing.T) {
	secret := []byte("file secret")
	path := filepath.Join(t.TempDir(), "secret.key")
	if err := os.WriteFile(path, secret, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(strings.NewReader(fmt.Sprintf("authenticationEnabled=true\n"+
		"authenticationProviders=org.apache.pulsar.broker.authentication.AuthenticationProviderToken\n"+
		"tokenSecretKey=file://%s\ntokenAuthClaim=role\nauthenticationRefreshCheckSeconds=5\n", path)))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Security) != 0 || cfg.Options.AuthenticationRefreshCheck != 5*time.Second {
		t.Fatalf("security keys without effect %v, refresh %v", cfg.Security, cfg.Options.AuthenticationRefreshCheck)
	}
	p := cfg.Options.AuthenticationProviders[0]
	if id, err := p.Authenticate(AuthenticationData{Data: []byte(hs256(t, secret, jwtClaims{"sub": "x", "role": "bob"}))}); err != nil || id.Role != "bob" {
		t.Fatalf("tokenAuthClaim=role: %v %v", id, err)
	}
	for _, bad := range []string{
		"authenticationProviders=org.apache.pulsar.broker.authentication.AuthenticationProviderToken\n",
		"authenticationProviders=org.apache.pulsar.broker.authentication.AuthenticationProviderAthenz\n",
		"authenticationProviders=org.apache.pulsar.broker.authentication.AuthenticationProviderBasic\n",
		"authenticationProviders=org.apache.pulsar.broker.authentication.AuthenticationProviderToken\ntokenPublicKey=data:;base64,AAAA\n",
	} {
		if _, err := ParseConfig(strings.NewReader(bad)); err == nil {
			t.Fatalf("config %q accepted", bad)
		}
	}
}

func TestTLSAuthenticationRoleIsCommonName(t *testing.T) {
	pki := newTestPKI(t)
	b := RunT(t, Options{TLS: pki.serverConfig(), TLSAddr: "127.0.0.1:0",
		AuthenticationEnabled: true, AuthenticationProviders: []AuthenticationProvider{NewTLSProvider()}})
	c := dialRawTLS(t, b, pki.clientConfig(pki.client("alice")))
	if cmd := c.connectWith("tls", nil); cmd.GetType() != proto.BaseCommand_CONNECTED {
		t.Fatalf("client certificate: %v", cmd)
	}
	b.srv.Mu.Lock()
	var roles []string
	for cn := range b.srv.Conns {
		roles = append(roles, cn.Role())
	}
	b.srv.Mu.Unlock()
	if len(roles) != 1 || roles[0] != "alice" {
		t.Fatalf("roles %v, want [alice]", roles)
	}
	wantAuthError(t, "TLS without a client certificate", dialRawTLS(t, b, pki.clientConfig()).connectWith("tls", nil))
	wantAuthError(t, "plain connection", dialRaw(t, b).connectWith("tls", nil))
}

func TestBasicAuthentication(t *testing.T) {
	// The $apr1$ hash is openssl's vector (internal/auth TestApr1).
	bc, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	htpasswd := "# users\nadmin:$apr1$abcdefgh$FBwExRW4dCc8aL.OvjpIE1\nbob:$2y$" + string(bc[4:]) + "\n"
	path := filepath.Join(t.TempDir(), ".htpasswd")
	if err := os.WriteFile(path, []byte(htpasswd), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(strings.NewReader("authenticationEnabled=true\n" +
		"authenticationProviders=org.apache.pulsar.broker.authentication.AuthenticationProviderBasic\nbasicAuthConf=" + path + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := RunT(t, cfg.Options)
	for _, ok := range []string{"admin:password", "bob:s3cret"} {
		if c := dialRaw(t, b).connectWith("basic", []byte(ok)); c.GetType() != proto.BaseCommand_CONNECTED {
			t.Fatalf("%s: %v", ok, c)
		}
	}
	for _, bad := range []string{"admin:wrong", "bob:wrong", "carol:password", "nocolon", "bob:" + strings.Repeat("x", 100)} {
		wantAuthError(t, bad, dialRaw(t, b).connectWith("basic", []byte(bad)))
	}
	for _, bad := range []string{"admin\n", "admin:plaintext\n", ":x\n"} {
		if _, err := NewBasicProvider([]byte(bad)); !errors.Is(err, errBasicAuthConf) {
			t.Fatalf("htpasswd %q: %v", bad, err)
		}
	}
	// basicAuthConf also takes the file's content in base64.
	raw, err := ReadBasicAuthConf(base64.StdEncoding.EncodeToString([]byte(htpasswd)))
	if err != nil || string(raw) != htpasswd {
		t.Fatalf("base64 basicAuthConf: %q %v", raw, err)
	}
}

func TestAuthChallengeWhenTokenExpires(t *testing.T) {
	secret := []byte("challenge secret")
	clk := NewFakeClock(time.Unix(1_800_000_000, 0))
	tok := mustProvider(t, TokenOptions{SecretKey: secret})
	b := RunT(t, Options{AuthenticationEnabled: true, AuthenticationProviders: []AuthenticationProvider{tok},
		AuthenticationRefreshCheck: 10 * time.Second, Clock: clk})
	exp := func(d time.Duration) []byte {
		return []byte(hs256(t, secret, jwtClaims{"sub": "alice", "exp": clk.Now().Add(d).Unix()}))
	}
	c := dialRaw(t, b)
	if cmd := c.connectWith("token", exp(15*time.Second)); cmd.GetType() != proto.BaseCommand_CONNECTED {
		t.Fatal(cmd)
	}
	clk.Advance(10 * time.Second) // not expired yet: no challenge
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
	c.expect(proto.BaseCommand_PONG)
	clk.Advance(10 * time.Second) // expired at the second check
	ch := c.expect(proto.BaseCommand_AUTH_CHALLENGE).GetAuthChallenge()
	if ch.GetChallenge().GetAuthMethodName() != "token" || string(ch.GetChallenge().GetAuthData()) != "refresh" {
		t.Fatalf("challenge %v", ch)
	}
	respond := func(data []byte) {
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_AUTH_RESPONSE.Enum(), AuthResponse: &proto.CommandAuthResponse{
			ClientVersion: gproto.String("raw-test"), ProtocolVersion: gproto.Int32(20),
			Response: &proto.AuthData{AuthMethodName: gproto.String("token"), AuthData: data}}})
	}
	respond(exp(time.Minute))
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
	c.expect(proto.BaseCommand_PONG)
	clk.Advance(10 * time.Second) // the refreshed token holds: no challenge, still open
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
	c.expect(proto.BaseCommand_PONG)
	clk.Advance(60 * time.Second)
	c.expect(proto.BaseCommand_AUTH_CHALLENGE)
	clk.Advance(10 * time.Second) // unanswered by the next check: closed
	c.expectClosed()

	// A refresh with an expired token closes the connection at once.
	c2 := dialRaw(t, b)
	if cmd := c2.connectWith("token", exp(5*time.Second)); cmd.GetType() != proto.BaseCommand_CONNECTED {
		t.Fatal(cmd)
	}
	clk.Advance(10 * time.Second)
	c2.expect(proto.BaseCommand_AUTH_CHALLENGE)
	c = c2
	respond(exp(-time.Second))
	// As Pulsar's authenticationFailed: the one error text, then closed.
	if e := c2.expect(proto.BaseCommand_ERROR).GetError(); e.GetError() != proto.ServerError_AuthenticationError || e.GetMessage() != "Failed to authenticate" {
		t.Fatalf("refused refresh: %v", e)
	}
	c2.expectClosed()
}
