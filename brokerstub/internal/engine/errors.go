package engine

// The errors the engine returns, which brokerstub exports under the same
// names (brokerstub.ErrClosed, ...) for errors.Is.

import "errors"

// ErrClosed is returned by operations on a stopped engine (a closed
// Broker).
var ErrClosed = errors.New("brokerstub: broker closed")

// ErrNoSubscription is returned by inspection of a subscription that does
// not exist.
var ErrNoSubscription = errors.New("brokerstub: no such subscription")

// ErrNotKeyShared is returned by KeyShared for a subscription whose
// consumers are not Key_Shared.
var ErrNotKeyShared = errors.New("brokerstub: subscription is not Key_Shared")
