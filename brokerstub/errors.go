package brokerstub

// The errors a Broker's methods return, for errors.Is.

import "errors"

// ErrClosed is returned by operations on a closed Broker.
var ErrClosed = errors.New("brokerstub: broker closed")

// ErrNoSubscription is returned by inspection of a subscription that does
// not exist.
var ErrNoSubscription = errors.New("brokerstub: no such subscription")

// ErrNotKeyShared is returned by KeyShared for a subscription whose
// consumers are not Key_Shared.
var ErrNotKeyShared = errors.New("brokerstub: subscription is not Key_Shared")
