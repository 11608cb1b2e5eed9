package brokerstub

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"testing"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// jwtClaims is the payload of a test token.
type jwtClaims map[string]any

func jwtSigningInput(t testing.TB, alg string, claims jwtClaims) string {
	t.Helper()
	h, _ := json.Marshal(map[string]string{"alg": alg, "typ": "JWT"})
	c, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
}

// hs256 signs claims with secret.
func hs256(t testing.TB, secret []byte, claims jwtClaims) string {
	in := jwtSigningInput(t, "HS256", claims)
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(in))
	return in + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// rs256 signs claims with an RSA key.
func rs256(t *testing.T, key *rsa.PrivateKey, claims jwtClaims) string {
	in := jwtSigningInput(t, "RS256", claims)
	d := sha256.Sum256([]byte(in))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, d[:])
	if err != nil {
		t.Fatal(err)
	}
	return in + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// es256 signs claims with a P-256 key (JWS's r||s signature).
func es256(t *testing.T, key *ecdsa.PrivateKey, claims jwtClaims) string {
	in := jwtSigningInput(t, "ES256", claims)
	d := sha256.Sum256([]byte(in))
	r, s, err := ecdsa.Sign(rand.Reader, key, d[:])
	if err != nil {
		t.Fatal(err)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return in + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// connectWith sends CONNECT with credentials and returns the answer:
// CONNECTED or ERROR.
func (c *rawClient) connectWith(method string, data []byte) *proto.BaseCommand {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_CONNECT.Enum(), Connect: &proto.CommandConnect{
		ClientVersion: gproto.String("raw-test"), ProtocolVersion: gproto.Int32(20),
		AuthMethodName: gproto.String(method), AuthData: data}})
	for {
		f, err := c.next()
		if err != nil {
			c.t.Fatalf("waiting for CONNECTED or ERROR: %v", err)
		}
		if t := f.Cmd.GetType(); t == proto.BaseCommand_CONNECTED || t == proto.BaseCommand_ERROR {
			return f.Cmd
		}
	}
}

// wantAuthError checks that cmd is ERROR AuthenticationError.
func wantAuthError(t *testing.T, what string, cmd *proto.BaseCommand) {
	t.Helper()
	if cmd.GetType() != proto.BaseCommand_ERROR || cmd.GetError().GetError() != proto.ServerError_AuthenticationError {
		t.Fatalf("%s: got %v, want AuthenticationError", what, cmd)
	}
}
