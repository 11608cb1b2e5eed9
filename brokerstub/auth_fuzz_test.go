package brokerstub

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"errors"
	"testing"
	"time"
)

// FuzzAuthenticate feeds malformed tokens, basic credentials, htpasswd
// files, public keys and certificates to the authentication path: each is
// refused with ErrAuthentication (or a config error), never a panic.
func FuzzAuthenticate(f *testing.F) {
	secret := []byte("fuzz secret")
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(hs256(f, secret, jwtClaims{"sub": "a", "exp": 1})))
	f.Add([]byte("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.AAAA"))
	f.Add([]byte("admin:$apr1$x$y"))
	f.Add([]byte("a.b.c"))
	f.Add([]byte{0x30, 0x82, 0x01})
	hmacP := mustProvider(f, TokenOptions{SecretKey: secret})
	ecP := mustProvider(f, TokenOptions{PublicKey: &ec.PublicKey})
	basic, err := NewBasicProvider([]byte("admin:$apr1$abcdefgh$FBwExRW4dCc8aL.OvjpIE1\n"))
	if err != nil {
		f.Fatal(err)
	}
	b := &Broker{opts: Options{AuthenticationEnabled: true,
		AuthenticationProviders: []AuthenticationProvider{hmacP, basic, NewTLSProvider()}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(what string, err error) {
			if err != nil && !errors.Is(err, ErrAuthentication) {
				t.Fatalf("%s: %v does not wrap ErrAuthentication", what, err)
			}
		}
		now := time.Unix(1_800_000_000, 0)
		for _, m := range []string{"token", "basic", "tls", "", string(data[:min(len(data), 8)])} {
			_, err := b.authenticate(m, AuthenticationData{Data: data}, now)
			check(m, err)
		}
		_, err := ecP.Authenticate(AuthenticationData{Data: data})
		check("ES256", err)
		if cert, err := x509.ParseCertificate(data); err == nil {
			_, err := b.authenticate("tls", AuthenticationData{PeerCertificates: []*x509.Certificate{cert}}, now)
			check("certificate", err)
		}
		if k, err := ParseTokenPublicKey(data); err == nil {
			if p, err := NewTokenProvider(TokenOptions{PublicKey: k}); err == nil {
				_, err := p.Authenticate(AuthenticationData{Data: data})
				check("parsed key", err)
			}
		}
		if p, err := NewBasicProvider(data); err == nil {
			_, err := p.Authenticate(AuthenticationData{Data: data})
			check("fuzzed htpasswd", err)
		}
	})
}
