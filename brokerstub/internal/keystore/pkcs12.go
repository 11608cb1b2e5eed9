package keystore

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"crypto/x509"
	"encoding/asn1"
	"hash"
	"math/big"
	"unicode/utf16"
)

var (
	oidData          = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 1}
	oidEncryptedData = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 6}

	oidKeyBag         = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 10, 1, 1}
	oidShroudedKeyBag = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 10, 1, 2}
	oidCertBag        = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 10, 1, 3}
	oidX509Cert       = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 22, 1}

	oidFriendlyName = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 20}
	oidLocalKeyID   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 21}

	oidPBES2           = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2          = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidPBEWithSHA3DES  = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 1, 3}
	oidPBEWithSHARC240 = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 1, 6}
	oidAES128CBC       = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC       = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC       = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
	oidHMACSHA1        = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidHMACSHA256      = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidHMACSHA512      = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 11}
	oidSHA1            = asn1.ObjectIdentifier{1, 3, 14, 3, 2, 26}
	oidSHA256          = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}
	oidSHA512          = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 3}
)

type algorithmIdentifier struct {
	Algorithm  asn1.ObjectIdentifier
	Parameters asn1.RawValue `asn1:"optional"`
}

type contentInfo struct {
	ContentType asn1.ObjectIdentifier
	Content     asn1.RawValue `asn1:"tag:0,explicit,optional"`
}

type pfxPDU struct {
	Version  int
	AuthSafe contentInfo
	MacData  macData `asn1:"optional"`
}

type macData struct {
	Mac struct {
		Algorithm algorithmIdentifier
		Digest    []byte
	}
	MacSalt    []byte
	Iterations int `asn1:"optional,default:1"`
}

type encryptedData struct {
	Version              int
	EncryptedContentInfo struct {
		ContentType                asn1.ObjectIdentifier
		ContentEncryptionAlgorithm algorithmIdentifier
		EncryptedContent           []byte `asn1:"tag:0,optional"`
	}
}

type safeBag struct {
	ID         asn1.ObjectIdentifier
	Value      asn1.RawValue     `asn1:"tag:0,explicit"`
	Attributes []pkcs12Attribute `asn1:"set,optional"`
}

type pkcs12Attribute struct {
	ID    asn1.ObjectIdentifier
	Value asn1.RawValue `asn1:"set"`
}

type certBag struct {
	ID   asn1.ObjectIdentifier
	Data []byte `asn1:"tag:0,explicit"`
}

type encryptedPrivateKeyInfo struct {
	Algo algorithmIdentifier
	Data []byte
}

type pbes2Params struct {
	KDF algorithmIdentifier
	Enc algorithmIdentifier
}

type pbkdf2Params struct {
	Salt       []byte
	Iterations int
	KeyLength  int                 `asn1:"optional"`
	PRF        algorithmIdentifier `asn1:"optional"`
}

type pbeParams struct {
	Salt       []byte
	Iterations int
}

// unmarshalAll parses der into v and refuses trailing bytes.
func unmarshalAll(der []byte, v any, what string) error {
	rest, err := asn1.Unmarshal(der, v)
	if err != nil {
		return errorf("pkcs12: %s: %v", what, err)
	}
	if len(rest) != 0 {
		return errorf("pkcs12: %s: %d trailing bytes", what, len(rest))
	}
	return nil
}

// ReadPKCS12 parses a PKCS#12 keystore: the MAC is verified with
// password (a file without one is accepted, as Java does), encrypted
// contents and shrouded keys are decrypted with it. Keys are paired with
// their certificates by localKeyId; certificates with no key are trusted
// entries.
func ReadPKCS12(data []byte, password string) (*Store, error) {
	return readPKCS12(data, password, maxIterations)
}

// readPKCS12 is ReadPKCS12 with a bound on iteration counts.
func readPKCS12(data []byte, password string, iterLimit int) (*Store, error) {
	if len(data) > MaxSize {
		return nil, errorf("%d bytes, more than %d", len(data), MaxSize)
	}
	var pfx pfxPDU
	if err := unmarshalAll(data, &pfx, "PFX"); err != nil {
		return nil, err
	}
	if pfx.Version != 3 {
		return nil, errorf("pkcs12: version %d, want 3", pfx.Version)
	}
	if !pfx.AuthSafe.ContentType.Equal(oidData) {
		return nil, errorf("pkcs12: public-key integrity (%v) is not supported", pfx.AuthSafe.ContentType)
	}
	var authSafe []byte
	if err := unmarshalAll(pfx.AuthSafe.Content.Bytes, &authSafe, "authSafe"); err != nil {
		return nil, err
	}
	if pfx.MacData.Mac.Algorithm.Algorithm != nil {
		if err := verifyMac(&pfx.MacData, authSafe, password, iterLimit); err != nil {
			return nil, err
		}
	}
	var infos []contentInfo
	if err := unmarshalAll(authSafe, &infos, "AuthenticatedSafe"); err != nil {
		return nil, err
	}
	var bags []safeBag
	for _, ci := range infos {
		var contents []byte
		switch {
		case ci.ContentType.Equal(oidData):
			if err := unmarshalAll(ci.Content.Bytes, &contents, "data"); err != nil {
				return nil, err
			}
		case ci.ContentType.Equal(oidEncryptedData):
			var ed encryptedData
			if err := unmarshalAll(ci.Content.Bytes, &ed, "encryptedData"); err != nil {
				return nil, err
			}
			var err error
			contents, err = decrypt(ed.EncryptedContentInfo.ContentEncryptionAlgorithm, ed.EncryptedContentInfo.EncryptedContent, password, iterLimit)
			if err != nil {
				return nil, err
			}
		default:
			return nil, errorf("pkcs12: content type %v is not supported", ci.ContentType)
		}
		var bs []safeBag
		if err := unmarshalAll(contents, &bs, "SafeContents"); err != nil {
			return nil, err
		}
		bags = append(bags, bs...)
	}
	return collect(bags, password, iterLimit)
}

// collect pairs keys with their certificates.
func collect(bags []safeBag, password string, iterLimit int) (*Store, error) {
	type keyBag struct {
		entry KeyEntry
		id    []byte
	}
	type cert struct {
		c  *x509.Certificate
		id []byte
	}
	var keys []keyBag
	var certs []cert
	for _, b := range bags {
		name, id := bagAttributes(b.Attributes)
		switch {
		case b.ID.Equal(oidCertBag):
			var cb certBag
			if err := unmarshalAll(b.Value.Bytes, &cb, "CertBag"); err != nil {
				return nil, err
			}
			if !cb.ID.Equal(oidX509Cert) {
				return nil, errorf("pkcs12: certificate type %v is not supported", cb.ID)
			}
			c, err := x509.ParseCertificate(cb.Data)
			if err != nil {
				return nil, errorf("pkcs12: certificate: %v", err)
			}
			certs = append(certs, cert{c, id})
		case b.ID.Equal(oidShroudedKeyBag):
			var epki encryptedPrivateKeyInfo
			if err := unmarshalAll(b.Value.Bytes, &epki, "EncryptedPrivateKeyInfo"); err != nil {
				return nil, err
			}
			der, err := decrypt(epki.Algo, epki.Data, password, iterLimit)
			if err != nil {
				return nil, err
			}
			k, err := parsePKCS8(der)
			if err != nil {
				return nil, err
			}
			keys = append(keys, keyBag{KeyEntry{Alias: name, Key: k}, id})
		case b.ID.Equal(oidKeyBag):
			k, err := parsePKCS8(b.Value.Bytes)
			if err != nil {
				return nil, err
			}
			keys = append(keys, keyBag{KeyEntry{Alias: name, Key: k}, id})
		}
		// Other bags (CRLs, secrets) hold nothing TLS uses: skipped.
	}
	st := &Store{}
	used := make([]bool, len(certs))
	for _, k := range keys {
		for i, c := range certs {
			if !used[i] && k.id != nil && subtle.ConstantTimeCompare(k.id, c.id) == 1 {
				k.entry.Chain = append(k.entry.Chain, c.c)
				used[i] = true
			}
		}
		st.Keys = append(st.Keys, k.entry)
	}
	for i, c := range certs {
		if used[i] {
			continue
		}
		if len(keys) > 0 {
			// The rest of a key's chain (CAs) carries no localKeyId.
			st.Keys[0].Chain = append(st.Keys[0].Chain, c.c)
			continue
		}
		st.Trusted = append(st.Trusted, c.c)
	}
	return st, nil
}

// bagAttributes returns a bag's friendlyName and localKeyId.
func bagAttributes(attrs []pkcs12Attribute) (string, []byte) {
	var name string
	var id []byte
	for _, a := range attrs {
		switch {
		case a.ID.Equal(oidFriendlyName):
			var raw asn1.RawValue
			if _, err := asn1.Unmarshal(a.Value.Bytes, &raw); err == nil && raw.Tag == asn1.TagBMPString && len(raw.Bytes)%2 == 0 {
				u := make([]uint16, len(raw.Bytes)/2)
				for i := range u {
					u[i] = uint16(raw.Bytes[2*i])<<8 | uint16(raw.Bytes[2*i+1])
				}
				name = string(utf16.Decode(u))
			}
		case a.ID.Equal(oidLocalKeyID):
			var v []byte
			if _, err := asn1.Unmarshal(a.Value.Bytes, &v); err == nil {
				id = v
			}
		}
	}
	return name, id
}

// bmpPassword is the password as PKCS#12's key derivation takes it:
// UTF-16BE with a two-byte terminator.
func bmpPassword(password string) []byte {
	u := utf16.Encode([]rune(password))
	out := make([]byte, 0, 2*len(u)+2)
	for _, c := range u {
		out = append(out, byte(c>>8), byte(c))
	}
	return append(out, 0, 0)
}

func checkIterations(n, limit int) error {
	if n < 1 || n > limit {
		return errorf("pkcs12: %d iterations (at most %d are read)", n, limit)
	}
	return nil
}

// verifyMac checks the MAC over the AuthenticatedSafe: HMAC keyed by
// PKCS#12's key derivation (ID 3) with the digest named.
func verifyMac(md *macData, content []byte, password string, iterLimit int) error {
	newHash, err := digestByOID(md.Mac.Algorithm.Algorithm)
	if err != nil {
		return err
	}
	if err := checkIterations(md.Iterations, iterLimit); err != nil {
		return err
	}
	key := pkcs12KDF(newHash, 3, bmpPassword(password), md.MacSalt, md.Iterations, newHash().Size())
	m := hmac.New(newHash, key)
	m.Write(content)
	if !hmac.Equal(m.Sum(nil), md.Mac.Digest) {
		return errorf("pkcs12: MAC check failed: %w", ErrPassword)
	}
	return nil
}

func digestByOID(oid asn1.ObjectIdentifier) (func() hash.Hash, error) {
	switch {
	case oid.Equal(oidSHA1):
		return sha1.New, nil
	case oid.Equal(oidSHA256):
		return sha256.New, nil
	case oid.Equal(oidSHA512):
		return sha512.New, nil
	}
	return nil, errorf("pkcs12: MAC digest %v is not supported (SHA-1, SHA-256 and SHA-512 are)", oid)
}

// decrypt decrypts content encrypted with PBES2 (PBKDF2 and AES-CBC, what
// keytool of JDK 12 and later writes) or PKCS#12's
// pbeWithSHAAnd3-KeyTripleDES-CBC (older keytool, openssl -legacy).
func decrypt(alg algorithmIdentifier, data []byte, password string, iterLimit int) ([]byte, error) {
	var block cipher.Block
	var iv []byte
	switch {
	case alg.Algorithm.Equal(oidPBES2):
		var p pbes2Params
		if err := unmarshalAll(alg.Parameters.FullBytes, &p, "PBES2 parameters"); err != nil {
			return nil, err
		}
		if !p.KDF.Algorithm.Equal(oidPBKDF2) {
			return nil, errorf("pkcs12: PBES2 key derivation %v is not supported (PBKDF2 is)", p.KDF.Algorithm)
		}
		var kp pbkdf2Params
		if err := unmarshalAll(p.KDF.Parameters.FullBytes, &kp, "PBKDF2 parameters"); err != nil {
			return nil, err
		}
		if err := checkIterations(kp.Iterations, iterLimit); err != nil {
			return nil, err
		}
		prf := sha1.New
		switch a := kp.PRF.Algorithm; {
		case a == nil || a.Equal(oidHMACSHA1):
		case a.Equal(oidHMACSHA256):
			prf = sha256.New
		case a.Equal(oidHMACSHA512):
			prf = sha512.New
		default:
			return nil, errorf("pkcs12: PBKDF2 PRF %v is not supported", a)
		}
		var keyLen int
		switch a := p.Enc.Algorithm; {
		case a.Equal(oidAES128CBC):
			keyLen = 16
		case a.Equal(oidAES192CBC):
			keyLen = 24
		case a.Equal(oidAES256CBC):
			keyLen = 32
		default:
			return nil, errorf("pkcs12: PBES2 cipher %v is not supported (AES-CBC is)", a)
		}
		if err := unmarshalAll(p.Enc.Parameters.FullBytes, &iv, "IV"); err != nil {
			return nil, err
		}
		// Java's PBES2 takes the password's UTF-8 bytes.
		key, err := pbkdf2.Key(prf, password, kp.Salt, kp.Iterations, keyLen)
		if err != nil {
			return nil, errorf("pkcs12: PBKDF2: %v", err)
		}
		if block, err = aes.NewCipher(key); err != nil {
			return nil, errorf("pkcs12: %v", err)
		}
	case alg.Algorithm.Equal(oidPBEWithSHA3DES):
		var p pbeParams
		if err := unmarshalAll(alg.Parameters.FullBytes, &p, "PBE parameters"); err != nil {
			return nil, err
		}
		if err := checkIterations(p.Iterations, iterLimit); err != nil {
			return nil, err
		}
		pw := bmpPassword(password)
		key := pkcs12KDF(sha1.New, 1, pw, p.Salt, p.Iterations, 24)
		iv = pkcs12KDF(sha1.New, 2, pw, p.Salt, p.Iterations, 8)
		var err error
		if block, err = des.NewTripleDESCipher(key); err != nil {
			return nil, errorf("pkcs12: %v", err)
		}
	case alg.Algorithm.Equal(oidPBEWithSHARC240):
		return nil, errorf("pkcs12: RC2-40 encryption is not supported: re-create the keystore with keytool of JDK 12 or later (or openssl pkcs12 -export without -legacy)")
	default:
		return nil, errorf("pkcs12: encryption %v is not supported", alg.Algorithm)
	}
	bs := block.BlockSize()
	if len(iv) != bs || len(data) == 0 || len(data)%bs != 0 {
		return nil, errorf("pkcs12: encrypted content of %d bytes (IV %d) is not whole blocks", len(data), len(iv))
	}
	out := make([]byte, len(data)) // bounded by the file
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(out, data)
	pad := int(out[len(out)-1])
	if pad == 0 || pad > bs {
		return nil, errorf("pkcs12: decryption failed: %w", ErrPassword)
	}
	for _, b := range out[len(out)-pad:] {
		if int(b) != pad {
			return nil, errorf("pkcs12: decryption failed: %w", ErrPassword)
		}
	}
	return out[:len(out)-pad], nil
}

// pkcs12KDF is the key derivation of RFC 7292 appendix B.2: n bytes of
// purpose id (1 key, 2 IV, 3 MAC key) from password (BMP) and salt.
func pkcs12KDF(newHash func() hash.Hash, id byte, password, salt []byte, iterations, n int) []byte {
	h := newHash()
	u, v := h.Size(), h.BlockSize()
	fill := func(s []byte) []byte {
		if len(s) == 0 {
			return nil
		}
		out := make([]byte, v*((len(s)+v-1)/v))
		for i := range out {
			out[i] = s[i%len(s)]
		}
		return out
	}
	D := make([]byte, v)
	for i := range D {
		D[i] = id
	}
	I := append(fill(salt), fill(password)...)
	one := big.NewInt(1)
	var out []byte
	for len(out) < n {
		h.Reset()
		h.Write(D)
		h.Write(I)
		A := h.Sum(nil)
		for r := 1; r < iterations; r++ {
			h.Reset()
			h.Write(A)
			A = h.Sum(A[:0])
		}
		out = append(out, A...)
		if len(out) >= n {
			break
		}
		B := make([]byte, v)
		for i := range B {
			B[i] = A[i%u]
		}
		Bn := new(big.Int).SetBytes(B)
		Bn.Add(Bn, one)
		mod := new(big.Int).Lsh(one, uint(8*v))
		for j := 0; j < len(I); j += v {
			Ij := new(big.Int).SetBytes(I[j : j+v])
			Ij.Add(Ij, Bn)
			Ij.Mod(Ij, mod)
			b := Ij.Bytes()
			clear(I[j : j+v])
			copy(I[j+v-len(b):j+v], b)
		}
	}
	return out[:n]
}
