package auth

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"hash"
	"math"
	"math/big"
	"os"
	"strings"
	"time"
)

// TokenConfig is brokerstub.TokenOptions: the key that signs the JWTs
// (SecretKey for HS256/384/512, PublicKey for RS* and ES*; exactly one is
// set), the claim naming the role (default "sub") and the audience that
// must be among the claim AudienceClaim (default "aud").
type TokenConfig struct {
	SecretKey               []byte
	PublicKey               crypto.PublicKey
	Claim                   string
	Audience, AudienceClaim string
}

// ErrTokenKey is wrapped by the errors of the token key readers.
var ErrTokenKey = errors.New("brokerstub: token key")

// ReadTokenKey reads a key as Pulsar's tokenSecretKey and tokenPublicKey
// accept it: "data:;base64,<key>", "file:///path", a file path, or the
// key in base64.
func ReadTokenKey(s string) ([]byte, error) {
	switch {
	case strings.HasPrefix(s, "data:"):
		_, enc, ok := strings.Cut(s, ",")
		if !ok {
			return nil, fmt.Errorf("%w: data URL without ','", ErrTokenKey)
		}
		if strings.Contains(s[:len(s)-len(enc)], ";base64") {
			k, err := base64.StdEncoding.DecodeString(enc)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrTokenKey, err)
			}
			return k, nil
		}
		return []byte(enc), nil
	case strings.HasPrefix(s, "file:"):
		path := strings.TrimPrefix(strings.TrimPrefix(s, "file:"), "//")
		k, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrTokenKey, err)
		}
		return k, nil
	}
	if k, err := os.ReadFile(s); err == nil {
		return k, nil
	}
	k, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: neither a file nor base64: %w", ErrTokenKey, err)
	}
	return k, nil
}

// ParseTokenPublicKey parses a public key in DER (X.509
// SubjectPublicKeyInfo, as Pulsar's tokens create-key-pair writes it) or
// PEM.
func ParseTokenPublicKey(b []byte) (crypto.PublicKey, error) {
	if blk, _ := pem.Decode(b); blk != nil {
		b = blk.Bytes
	}
	k, err := x509.ParsePKIXPublicKey(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTokenKey, err)
	}
	switch k.(type) {
	case *rsa.PublicKey, *ecdsa.PublicKey:
		return k, nil
	}
	return nil, fmt.Errorf("%w: %T is neither RSA nor ECDSA", ErrTokenKey, k)
}

// NewToken returns Pulsar's AuthenticationProviderToken (method
// "token"). Expired tokens (exp) and tokens not valid yet (nbf) are
// refused at the broker's clock.
func NewToken(o TokenConfig) (Provider, error) {
	if (o.SecretKey == nil) == (o.PublicKey == nil) {
		return nil, fmt.Errorf("%w: want one of SecretKey and PublicKey", ErrTokenKey)
	}
	if o.Claim == "" {
		o.Claim = "sub"
	}
	if o.AudienceClaim == "" {
		o.AudienceClaim = "aud"
	}
	return &tokenProvider{o: o}, nil
}

type tokenProvider struct {
	o TokenConfig
}

func (*tokenProvider) MethodName() string { return "token" }

// Authenticate verifies the JWT's signature and reads its claims; exp and
// nbf are returned in the Identity (Expires, NotBefore) for the caller to
// check at its clock.
func (p *tokenProvider) Authenticate(d Credentials) (Identity, error) {
	tok := strings.TrimSpace(string(d.Data))
	tok = strings.TrimPrefix(tok, "Bearer ")
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return Identity{}, Errorf("token: want 3 dot-separated parts, got %d", len(parts))
	}
	var hdr struct {
		Alg string `json:"alg"`
	}
	if err := decodeJWTPart(parts[0], &hdr); err != nil {
		return Identity{}, Errorf("token header: %v", err)
	}
	sig, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[2], "="))
	if err != nil {
		return Identity{}, Errorf("token signature: %v", err)
	}
	if err := p.verify(hdr.Alg, []byte(parts[0]+"."+parts[1]), sig); err != nil {
		return Identity{}, err
	}
	var claims map[string]json.RawMessage
	if err := decodeJWTPart(parts[1], &claims); err != nil {
		return Identity{}, Errorf("token claims: %v", err)
	}
	var role string
	if err := json.Unmarshal(claims[p.o.Claim], &role); err != nil || role == "" {
		return Identity{}, Errorf("token: no string claim %q", p.o.Claim)
	}
	if p.o.Audience != "" && !hasAudience(claims[p.o.AudienceClaim], p.o.Audience) {
		return Identity{}, Errorf("token: audience %q not in claim %q", p.o.Audience, p.o.AudienceClaim)
	}
	id := Identity{Role: role}
	if raw, ok := claims["exp"]; ok {
		exp, err := numericDate(raw)
		if err != nil {
			return Identity{}, Errorf("token exp: %v", err)
		}
		id.Expires = exp
	}
	if raw, ok := claims["nbf"]; ok {
		nbf, err := numericDate(raw)
		if err != nil {
			return Identity{}, Errorf("token nbf: %v", err)
		}
		id.NotBefore = nbf
	}
	return id, nil
}

func hasAudience(raw json.RawMessage, want string) bool {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one == want
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		for _, a := range many {
			if a == want {
				return true
			}
		}
	}
	return false
}

// numericDate reads a JWT NumericDate (seconds since the epoch).
func numericDate(raw json.RawMessage) (time.Time, error) {
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return time.Time{}, err
	}
	if math.IsNaN(f) || f < 0 || f > 1<<40 {
		return time.Time{}, fmt.Errorf("out of range: %v", f)
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), nil
}

func decodeJWTPart(s string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// verify checks the signature of signed with the provider's key by alg;
// an alg that does not fit the key ("none", HS256 with a public key) is
// refused.
func (p *tokenProvider) verify(alg string, signed, sig []byte) error {
	var h func() hash.Hash
	var ch crypto.Hash
	switch alg[min(2, len(alg)):] {
	case "256":
		h, ch = sha256.New, crypto.SHA256
	case "384":
		h, ch = sha512.New384, crypto.SHA384
	case "512":
		h, ch = sha512.New, crypto.SHA512
	default:
		return Errorf("token: unsupported alg %q", alg)
	}
	switch {
	case strings.HasPrefix(alg, "HS") && p.o.SecretKey != nil:
		m := hmac.New(h, p.o.SecretKey)
		m.Write(signed)
		if !hmac.Equal(m.Sum(nil), sig) {
			return Errorf("token: bad signature")
		}
		return nil
	case p.o.PublicKey == nil:
	case strings.HasPrefix(alg, "RS"):
		k, ok := p.o.PublicKey.(*rsa.PublicKey)
		if !ok {
			break
		}
		d := h()
		d.Write(signed)
		if rsa.VerifyPKCS1v15(k, ch, d.Sum(nil), sig) != nil {
			return Errorf("token: bad signature")
		}
		return nil
	case strings.HasPrefix(alg, "ES"):
		k, ok := p.o.PublicKey.(*ecdsa.PublicKey)
		if !ok {
			break
		}
		n := (k.Curve.Params().BitSize + 7) / 8
		if len(sig) != 2*n {
			return Errorf("token: ECDSA signature of %d bytes, want %d", len(sig), 2*n)
		}
		d := h()
		d.Write(signed)
		r, s := new(big.Int).SetBytes(sig[:n]), new(big.Int).SetBytes(sig[n:])
		if !ecdsa.Verify(k, d.Sum(nil), r, s) {
			return Errorf("token: bad signature")
		}
		return nil
	}
	return Errorf("token: alg %q does not fit the broker's key", alg)
}
