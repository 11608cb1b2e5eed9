package crypto

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"

	"github.com/pulsargo/sdk/pulsar/log"
)

// Sizes of the wire format.
const (
	// DataKeySize is the size of a data key: AES-256.
	DataKeySize = 32
	// IVSize is the size of the GCM IV in encryption_param.
	IVSize = 12
	// TagSize is the size of the GCM tag appended to every ciphertext.
	TagSize = 16
)

// Bounds on what one message's metadata can make a consumer do.
const (
	// maxKeysTried bounds the wrapped keys of one message that are tried.
	maxKeysTried = 32
	// maxCachedDataKeys bounds the unwrapped data keys kept (the oldest is
	// forgotten first): one per producer and key rotation seen.
	maxCachedDataKeys = 256
)

// DefaultMessageCrypto is the MessageCrypto of Pulsar's wire format (see
// the package doc). A producer's holds the current data key and its
// wrapped forms; a consumer's caches the data keys it unwrapped, by their
// wrapped value.
type DefaultMessageCrypto struct {
	logCtx string
	logger log.Logger

	mu      sync.Mutex
	dataKey []byte                        // producer: the current data key
	wrapped map[string]*EncryptionKeyInfo // producer: dataKey wrapped, by key name

	cache map[[sha256.Size]byte][]byte // consumer: data keys by digest of their wrapped value
	order [][sha256.Size]byte          // cache keys, oldest first
}

// NewDefaultMessageCrypto returns a DefaultMessageCrypto; keyGenNeeded
// (producers) makes its first data key now. logCtx prefixes its log lines;
// a nil logger discards them.
func NewDefaultMessageCrypto(logCtx string, keyGenNeeded bool, logger log.Logger) (*DefaultMessageCrypto, error) {
	if logger == nil {
		logger = log.DefaultNopLogger()
	}
	d := &DefaultMessageCrypto{logCtx: logCtx, logger: logger, wrapped: map[string]*EncryptionKeyInfo{},
		cache: map[[sha256.Size]byte][]byte{}}
	if keyGenNeeded {
		k, err := newDataKey()
		if err != nil {
			return d, err
		}
		d.dataKey = k
	}
	return d, nil
}

func newDataKey() ([]byte, error) {
	k := make([]byte, DataKeySize)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEncrypt, err)
	}
	return k, nil
}

// AddPublicKeyCipher makes a new data key and wraps it with each named
// public key; wrapped forms of the previous data key are dropped (keys not
// named are wrapped again when Encrypt next needs them).
func (d *DefaultMessageCrypto) AddPublicKeyCipher(keyNames []string, keyReader KeyReader) error {
	k, err := newDataKey()
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dataKey = k
	clear(d.wrapped)
	for _, name := range keyNames {
		if err := d.addPublicKeyCipher(name, keyReader); err != nil {
			return err
		}
	}
	return nil
}

// addPublicKeyCipher wraps the data key with the key name. Called with
// d.mu held.
func (d *DefaultMessageCrypto) addPublicKeyCipher(name string, keyReader KeyReader) error {
	if name == "" || keyReader == nil {
		return fmt.Errorf("%w: key name or key reader missing", ErrKeyReader)
	}
	info, err := keyReader.PublicKey(name, nil)
	if err != nil {
		return fmt.Errorf("%w: public key %q: %w", ErrKeyReader, name, err)
	}
	if info == nil {
		return fmt.Errorf("%w: no public key %q", ErrKeyReader, name)
	}
	pub, err := parsePublicKey(info.Key())
	if err != nil {
		return fmt.Errorf("public key %q: %w", name, err)
	}
	w, err := pub.wrap(d.dataKey)
	if err != nil {
		return fmt.Errorf("%w: wrapping the data key with %q: %w", ErrEncrypt, name, err)
	}
	d.wrapped[name] = NewEncryptionKeyInfo(name, w, info.Metadata())
	return nil
}

// RemoveKeyCipher forgets the wrapped data key of keyName.
func (d *DefaultMessageCrypto) RemoveKeyCipher(keyName string) bool {
	if keyName == "" {
		return false
	}
	d.mu.Lock()
	delete(d.wrapped, keyName)
	d.mu.Unlock()
	return true
}

// Encrypt seals payload with AES-256-GCM under the data key, a fresh IV
// each call; without encKeys it returns payload as it is.
func (d *DefaultMessageCrypto) Encrypt(encKeys []string, keyReader KeyReader, msgMetadata MessageMetadataSupplier, payload []byte) ([]byte, error) {
	if len(encKeys) == 0 {
		return payload, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dataKey == nil {
		k, err := newDataKey()
		if err != nil {
			return nil, err
		}
		d.dataKey = k
	}
	for _, name := range encKeys {
		if _, ok := d.wrapped[name]; !ok {
			if err := d.addPublicKeyCipher(name, keyReader); err != nil {
				d.logger.Errorf("%s: %v", d.logCtx, err)
				return nil, fmt.Errorf("%w: %w", ErrEncrypt, err)
			}
		}
		msgMetadata.UpsertEncryptionKey(*d.wrapped[name])
	}
	gcm, err := newGCM(d.dataKey)
	if err != nil {
		return nil, err
	}
	iv := make([]byte, IVSize)
	if _, err := rand.Read(iv); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEncrypt, err)
	}
	msgMetadata.SetEncryptionParam(iv)
	return gcm.Seal(make([]byte, 0, len(payload)+TagSize), iv, payload, nil), nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecrypt, err)
	}
	return cipher.NewGCM(b)
}

// Decrypt opens payload: with a cached data key if one of the message's
// wrapped keys was seen before, else by unwrapping them in turn with
// keyReader's private keys. It fails with ErrDataKey when no data key could
// be unwrapped, ErrDecrypt when the payload does not open.
func (d *DefaultMessageCrypto) Decrypt(msgMetadata MessageMetadataSupplier, payload []byte, keyReader KeyReader) ([]byte, error) {
	iv := msgMetadata.EncryptionParam()
	if len(iv) != IVSize {
		return nil, fmt.Errorf("%w: IV of %d bytes, want %d", ErrDecrypt, len(iv), IVSize)
	}
	if len(payload) < TagSize {
		return nil, fmt.Errorf("%w: %d bytes is shorter than the tag", ErrDecrypt, len(payload))
	}
	keys := msgMetadata.EncryptionKeys()
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: the message has no encryption keys", ErrDataKey)
	}
	keys = keys[:min(len(keys), maxKeysTried)]
	d.mu.Lock()
	defer d.mu.Unlock()
	var openErr error
	for _, k := range keys {
		if dk, ok := d.cache[sha256.Sum256(k.Key())]; ok {
			out, err := open(dk, iv, payload)
			if err == nil {
				return out, nil
			}
			openErr = err
		}
	}
	if keyReader == nil {
		return nil, fmt.Errorf("%w: no key reader", ErrKeyReader)
	}
	var keyErr error
	for _, k := range keys {
		dk, err := d.unwrap(k, keyReader)
		if err != nil {
			keyErr = errors.Join(keyErr, err)
			continue
		}
		out, err := open(dk, iv, payload)
		if err == nil {
			return out, nil
		}
		openErr = err
	}
	if openErr != nil {
		return nil, openErr
	}
	d.logger.Warnf("%s: %v", d.logCtx, keyErr)
	return nil, fmt.Errorf("%w: %w", ErrDataKey, keyErr)
}

// unwrap unwraps the data key of k with keyReader's private key and caches
// it. Called with d.mu held.
func (d *DefaultMessageCrypto) unwrap(k EncryptionKeyInfo, keyReader KeyReader) ([]byte, error) {
	if len(k.Key()) > maxWrappedKey {
		return nil, fmt.Errorf("%w: wrapped key %q of %d bytes", ErrDataKey, k.Name(), len(k.Key()))
	}
	info, err := keyReader.PrivateKey(k.Name(), k.Metadata())
	if err != nil {
		return nil, fmt.Errorf("%w: private key %q: %w", ErrKeyReader, k.Name(), err)
	}
	if info == nil {
		return nil, fmt.Errorf("%w: no private key %q", ErrKeyReader, k.Name())
	}
	priv, err := parsePrivateKey(info.Key())
	if err != nil {
		return nil, fmt.Errorf("private key %q: %w", k.Name(), err)
	}
	dk, err := priv.unwrap(k.Key())
	if err != nil {
		return nil, fmt.Errorf("%w: key %q: %w", ErrDataKey, k.Name(), err)
	}
	if n := len(dk); n != 16 && n != 24 && n != 32 {
		return nil, fmt.Errorf("%w: key %q gives a data key of %d bytes", ErrDataKey, k.Name(), n)
	}
	d.remember(sha256.Sum256(k.Key()), dk)
	return dk, nil
}

// remember caches a data key, forgetting the oldest beyond the bound.
func (d *DefaultMessageCrypto) remember(digest [sha256.Size]byte, dk []byte) {
	if _, ok := d.cache[digest]; ok {
		return
	}
	d.cache[digest] = dk
	d.order = append(d.order, digest)
	if len(d.order) > maxCachedDataKeys {
		delete(d.cache, d.order[0])
		d.order = d.order[1:]
	}
}

// open opens an AES-GCM ciphertext (tag appended).
func open(dataKey, iv, payload []byte) ([]byte, error) {
	gcm, err := newGCM(dataKey)
	if err != nil {
		return nil, err
	}
	out, err := gcm.Open(make([]byte, 0, len(payload)-TagSize), iv, payload, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecrypt, err)
	}
	return out, nil
}
