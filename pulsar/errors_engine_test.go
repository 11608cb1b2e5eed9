package pulsar

import (
	"errors"
	"fmt"
	"testing"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/pulsar/auth"
)

// TestEngineErrorsMatchPulsarSentinels: the engines make internal/api's
// errors; every sentinel of this package matches them with errors.Is (bare
// and wrapped, before and after publicErr), publicErr hands out an *Error
// of this package with the engine's Result and text that errors.As finds,
// and a bare engine sentinel becomes this package's sentinel itself.
func TestEngineErrorsMatchPulsarSentinels(t *testing.T) {
	for _, s := range engineSentinels() {
		engine, ok := s.cause.(*api.Error)
		if !ok {
			t.Fatalf("%v stands for no engine error", s)
		}
		wrapped := fmt.Errorf("send to t: %w", engine)
		for name, err := range map[string]error{"bare": engine, "wrapped": wrapped, "public": publicErr(wrapped)} {
			if !errors.Is(err, s) {
				t.Errorf("%s engine error %q does not match pulsar's sentinel", name, err)
			}
		}
		pub := publicErr(wrapped)
		var e *Error
		if !errors.As(pub, &e) || e.Result() != s.Result() || pub.Error() != wrapped.Error() {
			t.Errorf("publicErr(%q) = %q: want an *Error with Result %d and the same text", wrapped, pub, s.Result())
		}
		if got := publicErr(engine); got != s {
			t.Errorf("publicErr(engine's %q) = %v, want pulsar's sentinel", engine, got)
		}
		if s.Error() != engine.Error() || s.Result() != Result(engine.Result()) {
			t.Errorf("sentinel %q (Result %d) differs from the engine's %q (Result %d)", s, s.Result(), engine, engine.Result())
		}
	}
	// Cases of a broader sentinel match it across the boundary too, and
	// not the other way round.
	if !errors.Is(fmt.Errorf("x: %w", api.ErrSendQueueIsFull), ErrProducerQueueFull) ||
		!errors.Is(fmt.Errorf("x: %w", auth.ErrAuthenticationParams), ErrInvalidOptions) {
		t.Error("a case of a broader engine sentinel does not match pulsar's broader sentinel")
	}
	if errors.Is(fmt.Errorf("x: %w", api.ErrProducerQueueFull), ErrSendQueueIsFull) || errors.Is(fmt.Errorf("x: %w", api.ErrSendTimeout), ErrTimeout) {
		t.Error("an engine sentinel matches a pulsar sentinel it is no case of")
	}
	// This package's option errors are bare *Errors and cases of
	// ErrInvalidOptions, as the official client's.
	if err := invalidOption(InvalidTopicName, "Topic name is required for producer"); !errors.Is(err, ErrInvalidOptions) ||
		err.Error() != "Topic name is required for producer: InvalidTopicName" {
		t.Errorf("invalidOption: %q", err)
	}
}
