package keystore

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha1"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The keystores under brokerstub/testdata/keystore were made by JDK 17's
// keytool (see the README there), password "changeit".
func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "keystore", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadKeytoolKeyStores(t *testing.T) {
	for _, tc := range []struct {
		file, typ string
		rsa       bool
		cn        string
	}{
		{"server.p12", "PKCS12", true, "localhost"},
		{"server.jks", "JKS", true, "localhost"},
		{"server-ec.jks", "jks", false, "localhost"},
		{"client.p12", "pkcs12", false, "proxy-client"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			st, err := Read(tc.typ, readTestdata(t, tc.file), "changeit")
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Keys) != 1 || len(st.Trusted) != 0 {
				t.Fatalf("%d keys, %d trusted; want 1, 0", len(st.Keys), len(st.Trusted))
			}
			k := st.Keys[0]
			if len(k.Chain) != 1 || k.Chain[0].Subject.CommonName != tc.cn {
				t.Fatalf("chain %v", k.Chain)
			}
			var pubOK bool
			switch key := k.Key.(type) {
			case *rsa.PrivateKey:
				pubOK = tc.rsa && key.PublicKey.Equal(k.Chain[0].PublicKey)
			case *ecdsa.PrivateKey:
				pubOK = !tc.rsa && key.PublicKey.Equal(k.Chain[0].PublicKey)
			}
			if !pubOK {
				t.Fatalf("key %T does not match its certificate", k.Key)
			}
			if tc.file == "server.jks" && k.Alias != "server" {
				t.Fatalf("alias %q", k.Alias)
			}
		})
	}
}

func TestReadKeytoolTrustStores(t *testing.T) {
	for _, tc := range []struct{ file, typ string }{{"truststore.p12", "PKCS12"}, {"truststore.jks", "JKS"}} {
		st, err := Read(tc.typ, readTestdata(t, tc.file), "changeit")
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if len(st.Keys) != 0 || len(st.Trusted) != 1 || st.Trusted[0].Subject.CommonName != "proxy-client" {
			t.Fatalf("%s: keys %d trusted %v", tc.file, len(st.Keys), st.Trusted)
		}
	}
}

// A wrong password fails the integrity check (the MAC, the JKS digest),
// not later with garbage.
func TestWrongPassword(t *testing.T) {
	for _, tc := range []struct{ file, typ string }{{"server.p12", "PKCS12"}, {"server.jks", "JKS"}, {"truststore.p12", "PKCS12"}} {
		_, err := Read(tc.typ, readTestdata(t, tc.file), "wrong")
		if !errors.Is(err, ErrPassword) || !errors.Is(err, ErrKeyStore) {
			t.Fatalf("%s: %v, want ErrPassword", tc.file, err)
		}
	}
}

// A JKS key entry whose protection does not verify is refused even when
// the store's digest is recomputed to match (the digest and the key
// protection are two checks).
func TestJKSKeyProtectionChecked(t *testing.T) {
	data := readTestdata(t, "server-ec.jks")
	// Flip a byte inside the protected key (after magic, version, count,
	// tag, alias "server", date, key length and the ASN.1 header).
	body := append([]byte(nil), data[:len(data)-20]...)
	body[60] ^= 1
	_, err := ReadJKS(append(body, jksDigest(body, "changeit")...), "changeit")
	if !errors.Is(err, ErrPassword) {
		t.Fatalf("%v, want ErrPassword", err)
	}
}

func TestWrongTypeAndTruncation(t *testing.T) {
	p12 := readTestdata(t, "server.p12")
	if _, err := Read("JKS", p12, "changeit"); !errors.Is(err, ErrKeyStore) {
		t.Fatalf("PKCS12 read as JKS: %v", err)
	}
	if _, err := Read("JCEKS", p12, "changeit"); !errors.Is(err, ErrKeyStore) {
		t.Fatalf("JCEKS: %v", err)
	}
	jks := readTestdata(t, "server.jks")
	for n := 0; n < len(jks); n += 7 {
		if _, err := ReadJKS(jks[:n], "changeit"); err == nil {
			t.Fatalf("JKS cut at %d accepted", n)
		}
	}
	for n := 0; n < len(p12); n += 13 {
		if _, err := ReadPKCS12(p12[:n], "changeit"); err == nil {
			t.Fatalf("PKCS12 cut at %d accepted", n)
		}
	}
}

func jksDigest(body []byte, password string) []byte {
	h := sha1.New()
	h.Write(jksPassword(password))
	h.Write([]byte("Mighty Aphrodite"))
	h.Write(body)
	return h.Sum(nil)
}

// FuzzRead: no input panics or allocates beyond the file's size.
func FuzzRead(f *testing.F) {
	for _, n := range []string{"server.p12", "server.jks", "truststore.p12", "truststore.jks"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "keystore", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// At most 64 iterations: keytool's 10,000 (slow under the fuzzer's
		// instrumentation) stop at the count, mutated small counts go on.
		_, _ = readPKCS12(b, "changeit", 64)
		// A JKS digest is checked before entries are read; fuzz the
		// entry parser too with a matching digest.
		if len(b) > 20 {
			body := b[:len(b)-20]
			_, _ = ReadJKS(append(append([]byte(nil), body...), jksDigest(body, "changeit")...), "changeit")
		}
	})
}

// The PKCS12 MAC is checked: a changed byte inside the contents is
// refused as ErrPassword ("MAC check failed") before anything is
// decrypted or parsed.
func TestPKCS12MacChecked(t *testing.T) {
	data := readTestdata(t, "server.p12")
	for _, off := range []int{400, 1000, 1800} {
		b := append([]byte(nil), data...)
		b[off] ^= 0x01
		_, err := ReadPKCS12(b, "changeit")
		if !errors.Is(err, ErrPassword) || !strings.Contains(err.Error(), "MAC") {
			t.Errorf("byte %d changed: %v, want the MAC check to fail", off, err)
		}
	}
}
