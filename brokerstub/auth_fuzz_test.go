package brokerstub

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/admin"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/protocol"
	"github.com/pulsargo/sdk/brokerstub/internal/store"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
	"golang.org/x/crypto/bcrypt"

	gproto "google.golang.org/protobuf/proto"
)

// b64 is base64url without padding, as JWT parts are.
func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// malformedTokens are the seeds of the token path: bad base64, bad JSON in
// the header or claims, alg none, wrong alg for the key, claims of the
// wrong types, huge claims.
func malformedTokens(tb testing.TB, secret []byte, rsaKey *rsa.PrivateKey, rsaPubDER []byte) [][]byte {
	tb.Helper()
	hdr := b64(`{"alg":"HS256","typ":"JWT"}`)
	sub := b64(`{"sub":"admin"}`)
	rsSigned := func(claims jwtClaims) string {
		in := jwtSigningInput(tb, "RS256", claims)
		d := sha256.Sum256([]byte(in))
		sig, err := rsa.SignPKCS1v15(rand.Reader, rsaKey, crypto.SHA256, d[:])
		if err != nil {
			tb.Fatal(err)
		}
		return in + "." + base64.RawURLEncoding.EncodeToString(sig)
	}
	seeds := []string{
		hs256(tb, secret, jwtClaims{"sub": "a", "exp": 1}),                           // valid but expired
		hs256(tb, secret, jwtClaims{"sub": "admin"}),                                 // valid
		rsSigned(jwtClaims{"sub": "admin"}),                                          // valid for the RSA key
		"!!!.@@@.###",                                                                // not base64
		hdr + ".%%%." + b64("sig"),                                                   // claims not base64
		hdr + "." + sub + ".***",                                                     // signature not base64
		b64("{not json") + "." + sub + ".c2ln",                                       // header not JSON
		hdr + "." + b64(`[1,2`) + ".c2ln",                                            // claims not JSON
		hs256(tb, secret, jwtClaims{"sub": 42}),                                      // role not a string
		hs256(tb, secret, jwtClaims{"sub": ""}),                                      // empty role
		hs256(tb, secret, jwtClaims{"sub": "a", "exp": "tomorrow"}),                  // exp not a number
		hs256(tb, secret, jwtClaims{"sub": "a", "exp": 1e300}),                       // exp out of range
		hs256(tb, secret, jwtClaims{"sub": "a", "exp": -5}),                          // exp negative
		b64(`{"alg":"none"}`) + "." + sub + ".",                                      // alg none
		b64(`{"alg":"none"}`) + "." + sub,                                            // alg none, two parts
		b64(`{"alg":"HS2"}`) + "." + sub + ".c2ln",                                   // alg too short
		b64(`{"alg":""}`) + "." + sub + ".c2ln",                                      // alg empty
		b64(`{"alg":"RS256"}`) + "." + sub + ".c2ln",                                 // RS256 for the HMAC key
		b64(`{"alg":"ES512"}`) + "." + sub + "." + b64(strings.Repeat("x", 132)),     // ES512 for a P-256 key
		jwtSigningInput(tb, "HS256", jwtClaims{"sub": "admin"}) + "." + b64("x"),     // short HMAC
		hs256(tb, rsaPubDER, jwtClaims{"sub": "admin"}),                              // HS256 keyed with the RSA public key
		hs256(tb, secret, jwtClaims{"sub": strings.Repeat("r", 40<<10)}),             // huge claim, under the limit
		hs256(tb, secret, jwtClaims{"sub": "a", "pad": strings.Repeat("p", 70<<10)}), // over maxAuthData
		"Bearer " + hs256(tb, secret, jwtClaims{"sub": "admin"}),
		"a.b.c.d",
		"..",
		"",
	}
	out := make([][]byte, len(seeds))
	for i, s := range seeds {
		out[i] = []byte(s)
	}
	return out
}

// fuzzCA makes a CA and certificates it signs, for the seeds of the
// certificate path.
type fuzzCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newFuzzCA(tb testing.TB) *fuzzCA {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fuzz-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	return &fuzzCA{cert: cert, key: key}
}

// issue returns the DER of a certificate for cn ("" for none) signed by
// the CA, or self-signed, and its key.
func (ca *fuzzCA) issue(tb testing.TB, cn string, selfSigned bool) ([]byte, *ecdsa.PrivateKey) {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	parent, signer := ca.cert, ca.key
	if selfSigned {
		parent, signer = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		tb.Fatal(err)
	}
	return der, key
}

// malformedCerts are the seeds of the certificate path: garbage, truncated
// and bit-flipped DER, a certificate without a CN, a self-signed one.
func malformedCerts(tb testing.TB, ca *fuzzCA) [][]byte {
	tb.Helper()
	good, _ := ca.issue(tb, "fuzz-role", false)
	noCN, _ := ca.issue(tb, "", false)
	self, _ := ca.issue(tb, "admin", true)
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0xff
	return [][]byte{good, noCN, self, good[:len(good)/2], flipped, {0x30, 0x82, 0x01}, {0x30, 0x80}, []byte("not a certificate")}
}

// authFuzz is what FuzzAuthenticate checks its inputs against: keys,
// providers and a broker made once per process (an RSA key takes a
// second to make) and shared by the fuzzer's inputs and the tests that
// run its checks.
type authFuzz struct {
	secret, rsaPubDER []byte
	rsaKey            *rsa.PrivateKey
	ca                *fuzzCA
	hmacP, ecP, rsP   AuthenticationProvider
	b                 *Broker
}

var (
	authFuzzOnce sync.Once
	authFuzzFix  *authFuzz
	authFuzzErr  error
)

// authFuzzFixture returns the shared fixture, making it on first use.
func authFuzzFixture(tb testing.TB) *authFuzz {
	tb.Helper()
	authFuzzOnce.Do(func() { authFuzzFix, authFuzzErr = newAuthFuzz() })
	if authFuzzErr != nil {
		tb.Fatal(authFuzzErr)
	}
	return authFuzzFix
}

func newAuthFuzz() (*authFuzz, error) {
	a := &authFuzz{secret: []byte("fuzz secret")}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	if a.rsaKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		return nil, err
	}
	if a.rsaPubDER, err = x509.MarshalPKIXPublicKey(&a.rsaKey.PublicKey); err != nil {
		return nil, err
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fuzz-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	a.ca = &fuzzCA{cert: caCert, key: caKey}
	if a.hmacP, err = NewTokenProvider(TokenOptions{SecretKey: a.secret}); err != nil {
		return nil, err
	}
	if a.ecP, err = NewTokenProvider(TokenOptions{PublicKey: &ec.PublicKey}); err != nil {
		return nil, err
	}
	if a.rsP, err = NewTokenProvider(TokenOptions{PublicKey: &a.rsaKey.PublicKey}); err != nil {
		return nil, err
	}
	basic, err := NewBasicProvider([]byte("admin:$apr1$abcdefgh$FBwExRW4dCc8aL.OvjpIE1\n"))
	if err != nil {
		return nil, err
	}
	o := Options{AuthenticationEnabled: true,
		AuthenticationProviders: []AuthenticationProvider{a.hmacP, basic, NewTLSProvider()}}.withDefaults()
	eng, err := engine.New(o.engineConfig(), slog.New(slog.DiscardHandler), store.NewMemory(), nil, nil)
	if err != nil {
		return nil, err
	}
	a.b = &Broker{eng: eng, srv: &protocol.Server{Eng: eng, Log: eng.Logger(), Cfg: o.serverConfig()}, opts: o}
	return a, nil
}

// maxFuzzAuthInput bounds FuzzAuthenticate's inputs: the fuzzer minimizes
// each input that finds new coverage, one execution per cut it tries, so
// an input of tens of KiB (the seeds near maxAuthData) costs it far more
// than the short credentials it is after. The limit on credentials
// (maxAuthData, 64 KiB) is checked with the larger seeds by
// TestAuthenticateLargeInputs.
const maxFuzzAuthInput = 4 << 10

// FuzzAuthenticate feeds malformed tokens, basic credentials, htpasswd
// files, public keys and certificates to the authentication path: each is
// refused with ErrAuthentication (or a config error), never a panic. The
// seeds run in plain go test; those over maxFuzzAuthInput run in
// TestAuthenticateLargeInputs.
func FuzzAuthenticate(f *testing.F) {
	a := authFuzzFixture(f)
	for _, s := range authFuzzSeeds(f, a) {
		if len(s) <= maxFuzzAuthInput {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzAuthInput {
			return
		}
		a.check(t, data)
	})
}

// TestAuthenticateLargeInputs runs FuzzAuthenticate's checks on its seeds
// too large for the fuzzer: a claim just under the credentials' limit,
// a token over it.
func TestAuthenticateLargeInputs(t *testing.T) {
	a := authFuzzFixture(t)
	n := 0
	for _, s := range authFuzzSeeds(t, a) {
		if len(s) > maxFuzzAuthInput {
			a.check(t, s)
			n++
		}
	}
	if n < 2 {
		t.Fatalf("%d large seeds, want the two of the token path", n)
	}
}

func authFuzzSeeds(tb testing.TB, a *authFuzz) [][]byte {
	seeds := malformedTokens(tb, a.secret, a.rsaKey, a.rsaPubDER)
	seeds = append(seeds, malformedCerts(tb, a.ca)...)
	return append(seeds, []byte("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.AAAA"), []byte("admin:$apr1$x$y"),
		[]byte("admin:password"), a.rsaPubDER)
}

// maxFuzzBcryptCost bounds the bcrypt cost of an htpasswd file the fuzzer
// writes that check authenticates against: each step doubles the time,
// and cost 31 takes hours (the file is the operator's, not a peer's).
const maxFuzzBcryptCost = 6

// check runs data through every provider and the broker's authentication
// and checks that each refuses it with ErrAuthentication or accepts it
// with a role; alg none, and a certificate without a CN, are never
// accepted.
func (a *authFuzz) check(t *testing.T, data []byte) {
	check := func(what string, id Identity, err error) {
		if err != nil && !errors.Is(err, ErrAuthentication) {
			t.Fatalf("%s: %v does not wrap ErrAuthentication", what, err)
		}
		if err == nil && id.Role == "" {
			t.Fatalf("%s: accepted without a role", what)
		}
	}
	if hdr, _, ok := strings.Cut(string(data), "."); ok {
		// A token whose header says alg none is never accepted.
		if raw, err := base64.RawURLEncoding.DecodeString(hdr); err == nil && strings.Contains(string(raw), `"none"`) {
			for _, p := range []AuthenticationProvider{a.hmacP, a.ecP, a.rsP} {
				if id, err := p.Authenticate(AuthenticationData{Data: data}); err == nil {
					t.Fatalf("alg none accepted: %v", id)
				}
			}
		}
	}
	now := time.Unix(1_800_000_000, 0)
	for _, m := range []string{"token", "basic", "tls", "", string(data[:min(len(data), 8)])} {
		id, err := a.b.authenticate(m, AuthenticationData{Data: data}, now)
		check(m, id, err)
	}
	for name, p := range map[string]AuthenticationProvider{"ES256": a.ecP, "RS256": a.rsP} {
		id, err := p.Authenticate(AuthenticationData{Data: data})
		check(name, id, err)
	}
	// The admin API's path: an Authorization header.
	for _, scheme := range []string{"Bearer ", "Basic ", ""} {
		r := &http.Request{Header: http.Header{"Authorization": {scheme + string(data)}}}
		if method, d, ok := admin.HttpCredentials(r); ok {
			id, err := a.b.authenticate(method, AuthenticationData(d), now)
			check("http "+scheme, id, err)
		}
	}
	if cert, err := x509.ParseCertificate(data); err == nil {
		id, err := a.b.authenticate("tls", AuthenticationData{PeerCertificates: []*x509.Certificate{cert}}, now)
		check("certificate", id, err)
		if err == nil && cert.Subject.CommonName == "" {
			t.Fatal("a certificate without a CN was accepted")
		}
	}
	if k, err := ParseTokenPublicKey(data); err == nil {
		if p, err := NewTokenProvider(TokenOptions{PublicKey: k}); err == nil {
			id, err := p.Authenticate(AuthenticationData{Data: data})
			check("parsed key", id, err)
		}
	}
	if p, err := NewBasicProvider(data); err == nil && !costlyBcrypt(data) {
		id, err := p.Authenticate(AuthenticationData{Data: data})
		check("fuzzed htpasswd", id, err)
	}
}

// costlyBcrypt reports whether an htpasswd file holds a bcrypt hash of a
// cost over maxFuzzBcryptCost (or one whose cost does not parse).
func costlyBcrypt(htpasswd []byte) bool {
	for line := range strings.SplitSeq(string(htpasswd), "\n") {
		_, h, _ := strings.Cut(strings.TrimSpace(line), ":")
		if !strings.HasPrefix(h, "$2y$") && !strings.HasPrefix(h, "$2a$") && !strings.HasPrefix(h, "$2b$") {
			continue
		}
		if c, err := bcrypt.Cost([]byte("$2a$" + h[4:])); err != nil || c > maxFuzzBcryptCost {
			return true
		}
	}
	return false
}

// FuzzTLSClientCertificate presents the input as a client's certificate
// to a broker's TLS listener (which verifies client certificates against
// its CA when given, and authenticates by the tls provider): garbage DER
// fails the handshake, a certificate without a CN is refused with
// AuthenticationError, and the broker keeps serving.
//
// Every key and certificate is made once, before the loop. Each input
// still costs two TLS handshakes, the fuzzed one and a good client's after
// it, so this target runs at a hundred or two executions a second (on a
// shared 2-core machine), not the thousand of the others; and as the
// handshakes' randomness varies an input's coverage, the fuzzer often
// stops to minimize an input whose new coverage does not come back (up to
// -fuzzminimizetime, a minute by default: pass -fuzzminimizetime=5s for a
// long run). What it covers is the listener's side: crypto/tls's handling
// of the certificate, the broker's handshake errors and that they do not
// stop it. The certificate's parsing and the tls provider's rules are
// fuzzed at full speed, without TLS, by FuzzAuthenticate. (Fixing the
// randomness with testing/cryptotest races with the broker's goroutines,
// which outlive an input.)
func FuzzTLSClientCertificate(f *testing.F) {
	ca := newFuzzCA(f)
	for _, s := range malformedCerts(f, ca) {
		f.Add(s)
	}
	serverDER, serverKey := ca.issue(f, "127.0.0.1", false)
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	b := RunT(f, Options{TLS: &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{serverDER}, PrivateKey: serverKey}},
		ClientCAs: pool, ClientAuth: tls.VerifyClientCertIfGiven, MinVersion: tls.VersionTLS12},
		AuthenticationEnabled: true, AuthenticationProviders: []AuthenticationProvider{NewTLSProvider()}})
	_, clientKey := ca.issue(f, "unused", false)
	good, goodKey := ca.issue(f, "fuzz-role", false)
	f.Fuzz(func(t *testing.T, der []byte) {
		role, err := tlsConnectAs(b, pool, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: clientKey})
		if err == nil {
			cert, perr := x509.ParseCertificate(der)
			if perr != nil || cert.Subject.CommonName == "" || cert.CheckSignatureFrom(ca.cert) != nil {
				t.Fatalf("connected as %q with a certificate that does not verify or has no CN", role)
			}
		}
		// The broker still serves a good client.
		if role, err := tlsConnectAs(b, pool, tls.Certificate{Certificate: [][]byte{good}, PrivateKey: goodKey}); err != nil || role != "fuzz-role" {
			t.Fatalf("a good certificate after the fuzzed one: %q %v", role, err)
		}
	})
}

// tlsConnectAs connects to b's TLS listener with cert and sends CONNECT
// with the tls method; it returns the CN on CONNECTED, or the error (a
// failed handshake, or the broker's ERROR).
func tlsConnectAs(b *Broker, roots *x509.CertPool, cert tls.Certificate) (string, error) {
	nc, err := net.DialTimeout("tcp", b.Addr(), 5*time.Second)
	if err != nil {
		return "", err
	}
	defer func() { _ = nc.Close() }()
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	tc := tls.Client(nc, &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12,
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }})
	if err := tc.Handshake(); err != nil {
		return "", err
	}
	frame, err := wire.AppendCommand(nil, &proto.BaseCommand{Type: proto.BaseCommand_CONNECT.Enum(), Connect: &proto.CommandConnect{
		ClientVersion: gproto.String("fuzz"), ProtocolVersion: gproto.Int32(20), AuthMethodName: gproto.String("tls")}})
	if err != nil {
		return "", err
	}
	if _, err := tc.Write(frame); err != nil {
		return "", err
	}
	r := wire.NewReader(tc, 0)
	for {
		f, err := r.ReadFrame()
		if err != nil {
			return "", err // TLS 1.3 reports a refused certificate at the first read
		}
		switch f.Cmd.GetType() {
		case proto.BaseCommand_CONNECTED:
			leaf, err := x509.ParseCertificate(cert.Certificate[0])
			if err != nil {
				return "", errors.New("connected with a certificate that does not parse")
			}
			return leaf.Subject.CommonName, nil
		case proto.BaseCommand_ERROR:
			if f.Cmd.GetError().GetError() != proto.ServerError_AuthenticationError {
				return "", errors.New("unexpected error " + f.Cmd.GetError().String())
			}
			return "", errors.New(f.Cmd.GetError().GetMessage())
		}
	}
}
