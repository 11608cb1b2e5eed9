package keystore

import (
	"bytes"
	"crypto/sha1"
	"crypto/subtle"
	"crypto/x509"
	"encoding/asn1"
	"encoding/binary"
	"unicode/utf16"
)

// JKS layout (Sun's JavaKeyStore): magic, version (1 or 2), entry count,
// the entries, and a SHA-1 digest of the password (UTF-16BE), the text
// "Mighty Aphrodite" and every byte before the digest.
const (
	jksMagic      = 0xFEEDFEED
	jceksMagic    = 0xCECECECE
	jksPrivateKey = 1
	jksTrusted    = 2
	jksSecretKey  = 3 // JCEKS only
)

// oidJKSKeyProtector is the algorithm of a JKS-protected private key
// (Sun's KeyProtector).
var oidJKSKeyProtector = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 42, 2, 17, 1, 1}

// jksReader reads big-endian fields, failing on the first short read.
type jksReader struct {
	b   []byte
	err error
}

func (r *jksReader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = errorf("jks: truncated (want %d bytes, %d left)", n, len(r.b))
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *jksReader) u16() int {
	v := r.take(2)
	if v == nil {
		return 0
	}
	return int(binary.BigEndian.Uint16(v))
}

func (r *jksReader) u32() uint32 {
	v := r.take(4)
	if v == nil {
		return 0
	}
	return binary.BigEndian.Uint32(v)
}

// utf reads Java's writeUTF: a 2-byte length and modified UTF-8 (the same
// as UTF-8 for the aliases keytool writes).
func (r *jksReader) utf() string { return string(r.take(r.u16())) }

// bytes32 reads a 4-byte length and that many bytes (checked against what
// is left before anything is taken).
func (r *jksReader) bytes32() []byte {
	n := r.u32()
	if r.err == nil && uint64(n) > uint64(len(r.b)) {
		r.err = errorf("jks: a field of %d bytes, %d left", n, len(r.b))
		return nil
	}
	return r.take(int(n))
}

// jksPassword is the password as the JKS digests use it: UTF-16BE.
func jksPassword(password string) []byte {
	u := utf16.Encode([]rune(password))
	out := make([]byte, 2*len(u))
	for i, c := range u {
		binary.BigEndian.PutUint16(out[2*i:], c)
	}
	return out
}

// ReadJKS parses a JKS keystore, verifying its integrity digest and every
// private key's protection with password.
func ReadJKS(data []byte, password string) (*Store, error) {
	if len(data) > MaxSize {
		return nil, errorf("%d bytes, more than %d", len(data), MaxSize)
	}
	if len(data) < 12+sha1.Size {
		return nil, errorf("jks: %d bytes is too short", len(data))
	}
	pw := jksPassword(password)
	body, digest := data[:len(data)-sha1.Size], data[len(data)-sha1.Size:]
	h := sha1.New()
	h.Write(pw)
	h.Write([]byte("Mighty Aphrodite"))
	h.Write(body)
	r := &jksReader{b: body}
	switch magic := r.u32(); magic {
	case jksMagic:
	case jceksMagic:
		return nil, errorf("JCEKS keystores are not supported: convert with keytool -importkeystore -deststoretype PKCS12")
	default:
		return nil, errorf("jks: bad magic %#x (is it PKCS12? set the keystore type)", magic)
	}
	version := r.u32()
	if version != 1 && version != 2 {
		return nil, errorf("jks: version %d", version)
	}
	if subtle.ConstantTimeCompare(h.Sum(nil), digest) != 1 {
		return nil, errorf("jks: integrity check failed: %w", ErrPassword)
	}
	count := r.u32()
	st := &Store{}
	for i := uint32(0); i < count && r.err == nil; i++ {
		tag := r.u32()
		alias := r.utf()
		r.take(8) // creation date
		switch tag {
		case jksPrivateKey:
			protected := r.bytes32()
			n := r.u32()
			if r.err == nil && uint64(n) > uint64(len(r.b))/4 {
				return nil, errorf("jks: entry %q claims %d certificates", alias, n)
			}
			var chain []*x509.Certificate
			for j := uint32(0); j < n && r.err == nil; j++ {
				if version == 2 {
					if typ := r.utf(); r.err == nil && typ != "X.509" {
						return nil, errorf("jks: entry %q: certificate type %q", alias, typ)
					}
				}
				der := r.bytes32()
				if r.err != nil {
					break
				}
				c, err := x509.ParseCertificate(der)
				if err != nil {
					return nil, errorf("jks: entry %q: certificate: %v", alias, err)
				}
				chain = append(chain, c)
			}
			if r.err != nil {
				break
			}
			key, err := jksRecoverKey(protected, pw)
			if err != nil {
				return nil, errorf("jks: entry %q: %w", alias, err)
			}
			st.Keys = append(st.Keys, KeyEntry{Alias: alias, Key: key, Chain: chain})
		case jksTrusted:
			if version == 2 {
				if typ := r.utf(); r.err == nil && typ != "X.509" {
					return nil, errorf("jks: entry %q: certificate type %q", alias, typ)
				}
			}
			der := r.bytes32()
			if r.err != nil {
				break
			}
			c, err := x509.ParseCertificate(der)
			if err != nil {
				return nil, errorf("jks: entry %q: certificate: %v", alias, err)
			}
			st.Trusted = append(st.Trusted, c)
		default:
			return nil, errorf("jks: entry %q: unknown tag %d", alias, tag)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, errorf("jks: %d bytes after the last entry", len(r.b))
	}
	return st, nil
}

// jksRecoverKey undoes Sun's KeyProtector: the key is XORed with a SHA-1
// stream seeded by the password and a 20-byte salt, and followed by
// SHA-1(password, key), which is checked.
func jksRecoverKey(protected, pw []byte) (any, error) {
	var info struct {
		Algo struct {
			Algorithm  asn1.ObjectIdentifier
			Parameters asn1.RawValue `asn1:"optional"`
		}
		Data []byte
	}
	rest, err := asn1.Unmarshal(protected, &info)
	if err != nil || len(rest) != 0 {
		return nil, errorf("protected key: not an EncryptedPrivateKeyInfo")
	}
	if !info.Algo.Algorithm.Equal(oidJKSKeyProtector) {
		return nil, errorf("protected key: algorithm %v, want Sun's JKS key protector", info.Algo.Algorithm)
	}
	enc := info.Data
	if len(enc) < 2*sha1.Size {
		return nil, errorf("protected key: %d bytes is too short", len(enc))
	}
	salt, body, check := enc[:sha1.Size], enc[sha1.Size:len(enc)-sha1.Size], enc[len(enc)-sha1.Size:]
	plain := make([]byte, len(body)) // bounded by the file
	digest := salt
	for off := 0; off < len(body); off += sha1.Size {
		h := sha1.New()
		h.Write(pw)
		h.Write(digest)
		digest = h.Sum(nil)
		for i := 0; i < sha1.Size && off+i < len(body); i++ {
			plain[off+i] = body[off+i] ^ digest[i]
		}
	}
	h := sha1.New()
	h.Write(pw)
	h.Write(plain)
	if !bytes.Equal(h.Sum(nil), check) {
		return nil, ErrPassword
	}
	return parsePKCS8(plain)
}
