// Package crypto is the official Go client's pulsar/crypto API for
// end-to-end encryption: key readers, the MessageCrypto that seals and
// opens payloads, and the crypto-failure actions. Code that imports
// github.com/apache/pulsar-client-go/pulsar/crypto ports by changing the
// import path.
//
// The wire format is Pulsar's (the Java and official Go clients'): every
// payload (a whole message or batch after compression; each chunk of a
// chunked message on its own) is sealed with AES-256-GCM under a random
// data key, a fresh 12-byte IV per payload in the metadata's
// encryption_param and the 16-byte tag appended to the ciphertext. The data
// key is wrapped with each named public key and carried in encryption_keys:
// RSA keys with RSA-OAEP (SHA-1, MGF1-SHA-1), EC keys with ECIES as
// BouncyCastle's default "ECIES" cipher does it (ECDH on the key's curve,
// KDF2-SHA-1 over the ephemeral point and the shared secret, an XOR stream
// and an HMAC-SHA-1 tag; checked against BouncyCastle's own output in
// testdata/bc). Keys are PEM: public keys PKIX ("PUBLIC KEY", PKCS#1 for
// RSA) or an X.509 certificate's key, private keys PKCS#1 ("RSA PRIVATE
// KEY"), SEC 1 ("EC PRIVATE KEY") or PKCS#8. EC keys may name their curve
// or give it by explicit parameters, as `openssl ecparam -param_enc
// explicit` (Pulsar's docs) makes them, and points may be compressed; an
// "EC PARAMETERS" block before the key gives the curve only when the key
// has none. EC keys must be on P-256, P-384 or P-521 (the curves of the
// standard library): others, secp256k1 and P-224 included, fail with an
// *UnsupportedCurveError naming the curve. A key of more than 1 MiB is
// refused unread.
//
// Only the standard library's crypto is used.
package crypto
