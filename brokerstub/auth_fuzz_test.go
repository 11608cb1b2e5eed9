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
	"math/big"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
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

// FuzzAuthenticate feeds malformed tokens, basic credentials, htpasswd
// files, public keys and certificates to the authentication path: each is
// refused with ErrAuthentication (or a config error), never a panic. The
// seeds run in plain go test.
func FuzzAuthenticate(f *testing.F) {
	secret := []byte("fuzz secret")
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		f.Fatal(err)
	}
	rsaPubDER, err := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	if err != nil {
		f.Fatal(err)
	}
	ca := newFuzzCA(f)
	for _, s := range malformedTokens(f, secret, rsaKey, rsaPubDER) {
		f.Add(s)
	}
	for _, s := range malformedCerts(f, ca) {
		f.Add(s)
	}
	f.Add([]byte("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.AAAA"))
	f.Add([]byte("admin:$apr1$x$y"))
	f.Add([]byte("admin:password"))
	f.Add(rsaPubDER)
	hmacP := mustProvider(f, TokenOptions{SecretKey: secret})
	ecP := mustProvider(f, TokenOptions{PublicKey: &ec.PublicKey})
	rsP := mustProvider(f, TokenOptions{PublicKey: &rsaKey.PublicKey})
	basic, err := NewBasicProvider([]byte("admin:$apr1$abcdefgh$FBwExRW4dCc8aL.OvjpIE1\n"))
	if err != nil {
		f.Fatal(err)
	}
	b := &Broker{opts: Options{AuthenticationEnabled: true,
		AuthenticationProviders: []AuthenticationProvider{hmacP, basic, NewTLSProvider()}}}
	f.Fuzz(func(t *testing.T, data []byte) {
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
				for _, p := range []AuthenticationProvider{hmacP, ecP, rsP} {
					if id, err := p.Authenticate(AuthenticationData{Data: data}); err == nil {
						t.Fatalf("alg none accepted: %v", id)
					}
				}
			}
		}
		now := time.Unix(1_800_000_000, 0)
		for _, m := range []string{"token", "basic", "tls", "", string(data[:min(len(data), 8)])} {
			id, err := b.authenticate(m, AuthenticationData{Data: data}, now)
			check(m, id, err)
		}
		for name, p := range map[string]AuthenticationProvider{"ES256": ecP, "RS256": rsP} {
			id, err := p.Authenticate(AuthenticationData{Data: data})
			check(name, id, err)
		}
		// The admin API's path: an Authorization header.
		for _, scheme := range []string{"Bearer ", "Basic ", ""} {
			r := &http.Request{Header: http.Header{"Authorization": {scheme + string(data)}}}
			if method, d, ok := httpCredentials(r); ok {
				id, err := b.authenticate(method, d, now)
				check("http "+scheme, id, err)
			}
		}
		if cert, err := x509.ParseCertificate(data); err == nil {
			id, err := b.authenticate("tls", AuthenticationData{PeerCertificates: []*x509.Certificate{cert}}, now)
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
		if p, err := NewBasicProvider(data); err == nil {
			id, err := p.Authenticate(AuthenticationData{Data: data})
			check("fuzzed htpasswd", id, err)
		}
	})
}

// FuzzTLSClientCertificate presents the input as a client's certificate
// to a broker's TLS listener (which verifies client certificates against
// its CA when given, and authenticates by the tls provider): garbage DER
// fails the handshake, a certificate without a CN is refused with
// AuthenticationError, and the broker keeps serving.
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
	f.Fuzz(func(t *testing.T, der []byte) {
		role, err := tlsConnectAs(b, pool, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: clientKey})
		if err == nil {
			cert, perr := x509.ParseCertificate(der)
			if perr != nil || cert.Subject.CommonName == "" || cert.CheckSignatureFrom(ca.cert) != nil {
				t.Fatalf("connected as %q with a certificate that does not verify or has no CN", role)
			}
		}
		// The broker still serves a good client.
		good, goodKey := ca.issue(t, "fuzz-role", false)
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
