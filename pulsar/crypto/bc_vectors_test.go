package crypto

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// bcDir holds the BouncyCastle vectors and the keys they were made with
// (testdata/bc/README.md says how they are regenerated).
const bcDir = "testdata/bc"

// vector is one line of a vectors file: a key stem, a data key and its
// ECIES ciphertext.
type vector struct {
	stem            string
	dataKey, sealed []byte
}

func readVectors(t *testing.T, name string) []vector {
	t.Helper()
	f, err := os.Open(filepath.Join(bcDir, name))
	require.NoError(t, err)
	defer f.Close()
	var out []vector
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		require.Len(t, fields, 3, line)
		dk, err := hex.DecodeString(fields[1])
		require.NoError(t, err)
		w, err := hex.DecodeString(fields[2])
		require.NoError(t, err)
		out = append(out, vector{stem: fields[0], dataKey: dk, sealed: w})
	}
	require.NoError(t, s.Err())
	return out
}

// keyFile reads testdata/bc/keys/<stem><suffix>.
func keyFile(t *testing.T, stem, suffix string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(bcDir, "keys", stem+suffix))
	require.NoError(t, err)
	return b
}

// bcDataKeys are the data keys the vectors wrap (as EciesVectors.java).
var bcDataKeys = [][]byte{[]byte("pulsargo-bouncycastle-ecies-key!"), []byte("pulsargo-16-key!")}

// privateForms are the private key files of a stem: openssl's SEC 1 output
// (an "EC PARAMETERS" block, then "EC PRIVATE KEY") and its PKCS#8 form.
var privateForms = []string{".priv.pem", ".pkcs8.pem"}

// keyStems lists the stems of testdata/bc/keys.
func keyStems(t *testing.T) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(bcDir, "keys", "*.pub.pem"))
	require.NoError(t, err)
	var stems []string
	for _, p := range m {
		stems = append(stems, strings.TrimSuffix(filepath.Base(p), ".pub.pem"))
	}
	require.NotEmpty(t, stems)
	return stems
}

// Every ciphertext BouncyCastle's Cipher "ECIES" made (as the Java client
// wraps data keys) opens with our ECIES under every form of its private
// key, named or explicit curve parameters; secp256k1 ones are refused by
// name.
func TestBouncyCastleCiphertextsOpen(t *testing.T) {
	vs := readVectors(t, "bc-wrapped.txt")
	seen := map[string]int{}
	for _, v := range vs {
		for _, form := range privateForms {
			k, err := parsePrivateKey(keyFile(t, v.stem, form))
			if strings.HasPrefix(v.stem, "secp256k1") {
				var uc *UnsupportedCurveError
				require.ErrorAs(t, err, &uc, v.stem+form)
				require.Equal(t, "secp256k1", uc.Curve)
				continue
			}
			require.NoError(t, err, v.stem+form)
			dk, err := k.unwrap(v.sealed)
			require.NoError(t, err, v.stem+form)
			require.Equal(t, v.dataKey, dk, v.stem+form)
			seen[v.stem]++
		}
	}
	for _, stem := range keyStems(t) {
		if !strings.HasPrefix(stem, "secp256k1") {
			require.Equal(t, 2*len(bcDataKeys)*len(privateForms), seen[stem], stem)
		}
	}
}

// BouncyCastle opened every ciphertext of go-wrapped.txt (our ECIES, each
// P-curve key) with both forms of the private key: bc-opened-go.txt is
// EciesVectors.java's record of it (regen.sh). The ciphertexts open with
// our ECIES too.
func TestBouncyCastleOpensOurCiphertexts(t *testing.T) {
	vs := readVectors(t, "go-wrapped.txt")
	rec, err := os.ReadFile(filepath.Join(bcDir, "bc-opened-go.txt"))
	require.NoError(t, err)
	ok := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(rec)), "\n") {
		f := strings.Fields(line)
		if strings.HasPrefix(line, "#") {
			require.Contains(t, line, " 0 failed", line)
			continue
		}
		require.GreaterOrEqual(t, len(f), 3, line)
		require.Equal(t, "OK", f[2], line)
		ok[f[0]]++
	}
	for _, v := range vs {
		k, err := parsePrivateKey(keyFile(t, v.stem, ".priv.pem"))
		require.NoError(t, err)
		dk, err := k.unwrap(v.sealed)
		require.NoError(t, err, v.stem)
		require.Equal(t, v.dataKey, dk)
	}
	var total int
	for _, stem := range keyStems(t) {
		if !strings.HasPrefix(stem, "secp256k1") {
			require.Equal(t, 2*len(bcDataKeys)*len(privateForms), ok[stem], stem)
			total += ok[stem]
		}
	}
	require.Equal(t, len(vs)*len(privateForms), total)
}

// With PULSARGO_ECIES_VECTORS=<file> set, writes the ciphertexts of our
// ECIES for EciesVectors.java to open (regen.sh does it); else skipped.
func TestWriteECIESVectors(t *testing.T) {
	out := os.Getenv("PULSARGO_ECIES_VECTORS")
	if out == "" {
		t.Skip("PULSARGO_ECIES_VECTORS not set (regen.sh sets it)")
	}
	var b strings.Builder
	for _, stem := range keyStems(t) {
		if strings.HasPrefix(stem, "secp256k1") {
			continue
		}
		pub, err := parsePublicKey(keyFile(t, stem, ".pub.pem"))
		require.NoError(t, err, stem)
		for _, dk := range bcDataKeys {
			for range 2 {
				w, err := pub.wrap(dk)
				require.NoError(t, err)
				fmt.Fprintf(&b, "%s %x %x\n", stem, dk, w)
			}
		}
	}
	require.NoError(t, os.WriteFile(out, []byte(b.String()), 0o644))
}
