package auth

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/crypto/bcrypt"
)

// ErrBasicAuthConf is wrapped by the errors of ReadBasicAuthConf and
// NewBasic.
var ErrBasicAuthConf = errors.New("brokerstub: basicAuthConf")

// maxHtpasswd bounds an htpasswd file.
const maxHtpasswd = 1 << 20

// ReadBasicAuthConf reads Pulsar's basicAuthConf: a file path (or
// file:// URL), or the htpasswd content in base64.
func ReadBasicAuthConf(s string) ([]byte, error) {
	path := strings.TrimPrefix(strings.TrimPrefix(s, "file:"), "//")
	if st, err := os.Stat(path); err == nil {
		if st.Size() > maxHtpasswd {
			return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrBasicAuthConf, path, maxHtpasswd)
		}
		return os.ReadFile(path)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: neither a file nor base64: %w", ErrBasicAuthConf, err)
	}
	return b, nil
}

// NewBasic returns Pulsar's AuthenticationProviderBasic (method
// "basic"; the client sends "user:password") for an htpasswd file whose
// lines are "user:hash", the hash MD5-crypt ("$apr1$...") or bcrypt
// ("$2y$", "$2a$", "$2b$"), as Pulsar accepts them. The role is the user.
func NewBasic(htpasswd []byte) (Provider, error) {
	if len(htpasswd) > maxHtpasswd {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrBasicAuthConf, maxHtpasswd)
	}
	users := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(htpasswd))
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		u, h, ok := strings.Cut(l, ":")
		if !ok || u == "" {
			return nil, fmt.Errorf("%w: line %d: want user:hash", ErrBasicAuthConf, n)
		}
		if !strings.HasPrefix(h, "$apr1$") && !isBcrypt(h) {
			return nil, fmt.Errorf("%w: line %d: user %s: want an $apr1$ or bcrypt hash", ErrBasicAuthConf, n, u)
		}
		users[u] = h
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBasicAuthConf, err)
	}
	return basicProvider{users: users}, nil
}

func isBcrypt(h string) bool {
	return strings.HasPrefix(h, "$2y$") || strings.HasPrefix(h, "$2a$") || strings.HasPrefix(h, "$2b$")
}

// errBasicRefused is the one error of an unknown user and a wrong
// password, so that neither the client nor the log tells them apart.
var errBasicRefused = Errorf("basic: unknown user or wrong password")

type basicProvider struct {
	users map[string]string
}

func (basicProvider) MethodName() string { return "basic" }

func (p basicProvider) Authenticate(d Credentials) (Identity, error) {
	user, pass, ok := strings.Cut(string(d.Data), ":")
	if !ok {
		return Identity{}, Errorf("basic: want user:password")
	}
	h, ok := p.users[user]
	if !ok {
		return Identity{}, errBasicRefused
	}
	if isBcrypt(h) {
		if len(pass) > 72 || bcrypt.CompareHashAndPassword([]byte("$2a$"+h[4:]), []byte(pass)) != nil {
			return Identity{}, errBasicRefused
		}
		return Identity{Role: user}, nil
	}
	salt, _, _ := strings.Cut(h[len("$apr1$"):], "$")
	if subtle.ConstantTimeCompare([]byte(apr1(pass, salt)), []byte(h)) != 1 {
		return Identity{}, errBasicRefused
	}
	return Identity{Role: user}, nil
}

// apr1 is Apache's MD5-crypt ("$apr1$salt$hash"), the algorithm of
// htpasswd -m.
func apr1(password, salt string) string {
	const magic = "$apr1$"
	if len(salt) > 8 {
		salt = salt[:8]
	}
	pw := []byte(password)
	alt := md5.Sum([]byte(password + salt + password))
	ctx := md5.New()
	ctx.Write([]byte(password + magic + salt))
	for i := len(pw); i > 0; i -= 16 {
		ctx.Write(alt[:min(i, 16)])
	}
	for i := len(pw); i > 0; i >>= 1 {
		if i&1 != 0 {
			ctx.Write([]byte{0})
		} else {
			ctx.Write(pw[:1])
		}
	}
	sum := ctx.Sum(nil)
	for i := range 1000 {
		c := md5.New()
		if i&1 != 0 {
			c.Write(pw)
		} else {
			c.Write(sum)
		}
		if i%3 != 0 {
			c.Write([]byte(salt))
		}
		if i%7 != 0 {
			c.Write(pw)
		}
		if i&1 != 0 {
			c.Write(sum)
		} else {
			c.Write(pw)
		}
		sum = c.Sum(nil)
	}
	const itoa64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	var out strings.Builder
	enc := func(a, b, c byte, n int) {
		v := uint(a)<<16 | uint(b)<<8 | uint(c)
		for range n {
			out.WriteByte(itoa64[v&0x3f])
			v >>= 6
		}
	}
	enc(sum[0], sum[6], sum[12], 4)
	enc(sum[1], sum[7], sum[13], 4)
	enc(sum[2], sum[8], sum[14], 4)
	enc(sum[3], sum[9], sum[15], 4)
	enc(sum[4], sum[10], sum[5], 4)
	enc(0, 0, sum[11], 2)
	return magic + salt + "$" + out.String()
}
