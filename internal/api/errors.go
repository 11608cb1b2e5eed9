package api

import (
	"errors"

	"github.com/pulsargo/sdk/internal/conn"
)

// Sentinel errors; every error the pulsar package and the engines return
// wraps one of them or a broker error, so callers test with errors.Is. The
// engines return them directly: there is no translation layer between an
// engine's error and the one the user sees.
var (
	// ErrClientClosed: the Client was closed.
	ErrClientClosed = errors.New("pulsar: client closed")
	// ErrProducerClosed: the Producer was closed.
	ErrProducerClosed = errors.New("pulsar: producer closed")
	// ErrConsumerClosed: the Consumer or Reader was closed.
	ErrConsumerClosed = errors.New("pulsar: consumer closed")
	// ErrInvalidOptions: options were missing or inconsistent.
	ErrInvalidOptions = errors.New("pulsar: invalid options")
	// ErrSendTimeout: a message was not acknowledged by the broker within
	// ProducerOptions.SendTimeout.
	ErrSendTimeout = errors.New("pulsar: send timeout")
	// ErrProducerQueueFull: MaxPendingMessages or the memory limit is
	// reached and DisableBlockIfQueueFull is set.
	ErrProducerQueueFull = errors.New("pulsar: producer queue is full")
	// ErrMessageTooLarge: a message is larger than the client's memory limit
	// (ClientOptions.MemoryLimitBytes) and so can never be held. Messages
	// larger than the broker's max message size are chunked instead.
	ErrMessageTooLarge = errors.New("pulsar: message too large")
	// ErrTimeout: a request to the broker got no answer in time.
	ErrTimeout = conn.ErrTimeout
	// ErrConnectionClosed: the connection to the broker closed.
	ErrConnectionClosed = conn.ErrClosed
)
