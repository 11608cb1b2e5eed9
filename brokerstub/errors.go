package brokerstub

// The errors a Broker's methods return, for errors.Is. They are the
// engine's (internal/engine), so that an error the data path returns from
// deep inside matches them.

import "github.com/pulsargo/sdk/brokerstub/internal/engine"

// ErrClosed is returned by operations on a closed Broker.
var ErrClosed = engine.ErrClosed

// ErrNoSubscription is returned by inspection of a subscription that does
// not exist.
var ErrNoSubscription = engine.ErrNoSubscription

// ErrNotKeyShared is returned by KeyShared for a subscription whose
// consumers are not Key_Shared.
var ErrNotKeyShared = engine.ErrNotKeyShared
