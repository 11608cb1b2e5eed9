package api

// ErrCrypto: end-to-end encryption or decryption failed (Result
// CryptoError); the cause is wrapped with it.
var ErrCrypto = NewError(CryptoError, "crypto error")
