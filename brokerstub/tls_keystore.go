package brokerstub

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"os"

	"github.com/pulsargo/sdk/brokerstub/internal/keystore"
)

// TLSKeyStore names the Java KeyStores of a broker's TLS identity, as
// Pulsar's tlsEnabledWithKeyStore=true with tlsKeyStoreType, tlsKeyStore,
// tlsKeyStorePassword, tlsTrustStoreType, tlsTrustStore and
// tlsTrustStorePassword. PKCS12 (what keytool writes by default since
// JDK 9, and openssl pkcs12 -export) and JKS are read; the store's
// integrity check (PKCS12's MAC, JKS's digest) must verify with its
// password. The key store's password also unlocks its key, as Pulsar's
// KeyManagerFactory uses it.
type TLSKeyStore struct {
	// KeyStoreType is "PKCS12" or "JKS" (any case). Default "JKS", as
	// Pulsar's tlsKeyStoreType.
	KeyStoreType string
	// KeyStore is the path of the key store, which holds one private key
	// entry (the first is used when there are more).
	KeyStore string
	// KeyStorePassword is its password (and its key's).
	KeyStorePassword string
	// TrustStoreType is "PKCS12" or "JKS". Default "JKS".
	TrustStoreType string
	// TrustStore, when set, is the path of the store of trusted
	// certificates client certificates are verified against when a client
	// presents one. Default "": client certificates are not asked for.
	TrustStore string
	// TrustStorePassword is its password.
	TrustStorePassword string
	// RequireTrustedClientCert and AllowInsecureConnection are as in
	// TLSFiles.
	RequireTrustedClientCert bool
	AllowInsecureConnection  bool
}

// Config reads the stores into a server tls.Config (TLS 1.2 or later).
func (k TLSKeyStore) Config() (*tls.Config, error) {
	st, err := readKeyStore(k.KeyStoreType, k.KeyStore, k.KeyStorePassword)
	if err != nil {
		return nil, fmt.Errorf("%w: tlsKeyStore: %w", errTLSConfig, err)
	}
	if len(st.Keys) == 0 {
		return nil, fmt.Errorf("%w: tlsKeyStore %s holds no private key entry", errTLSConfig, k.KeyStore)
	}
	e := st.Keys[0]
	if len(e.Chain) == 0 {
		return nil, fmt.Errorf("%w: tlsKeyStore %s: key %q has no certificate", errTLSConfig, k.KeyStore, e.Alias)
	}
	cert := tls.Certificate{PrivateKey: e.Key, Leaf: e.Chain[0]}
	for _, c := range e.Chain {
		cert.Certificate = append(cert.Certificate, c.Raw)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if k.TrustStore == "" {
		return cfg, nil
	}
	ts, err := readKeyStore(k.TrustStoreType, k.TrustStore, k.TrustStorePassword)
	if err != nil {
		return nil, fmt.Errorf("%w: tlsTrustStore: %w", errTLSConfig, err)
	}
	pool := x509.NewCertPool()
	for _, c := range ts.Trusted {
		pool.AddCert(c)
	}
	for _, e := range ts.Keys { // a key entry's certificate is trusted too, as Java's TrustManager takes it
		if len(e.Chain) > 0 {
			pool.AddCert(e.Chain[len(e.Chain)-1])
		}
	}
	if len(ts.Trusted) == 0 && len(ts.Keys) == 0 {
		return nil, fmt.Errorf("%w: tlsTrustStore %s holds no certificate", errTLSConfig, k.TrustStore)
	}
	setClientAuth(cfg, pool, k.RequireTrustedClientCert, k.AllowInsecureConnection)
	return cfg, nil
}

// readKeyStore reads a keystore file of at most keystore.MaxSize bytes.
func readKeyStore(typ, path, password string) (*keystore.Store, error) {
	if typ == "" {
		typ = "JKS"
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, keystore.MaxSize+1))
	if err != nil {
		return nil, err
	}
	st, err := keystore.Read(typ, data, password)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}
