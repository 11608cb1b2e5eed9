package pulsar

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
)

// TestClientErrorsSayWhatToChange: a service URL without a scheme is
// refused with the official Result, naming the URL and the valid schemes;
// a pulsar:// URL that points at an HTTP port fails with an error that
// says so (not "frame too large") and names the ports to use instead.
func TestClientErrorsSayWhatToChange(t *testing.T) {
	t.Run("no scheme", func(t *testing.T) {
		_, err := NewClient(ClientOptions{URL: "localhost:6650"})
		var pe *Error
		if !errors.Is(err, ErrInvalidOptions) || !errors.As(err, &pe) || pe.Result() != InvalidConfiguration {
			t.Fatalf("err = %v", err)
		}
		for _, want := range []string{`"localhost:6650"`, "pulsar://", "pulsar+ssl", "http"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q does not mention %s", err, want)
			}
		}
	})
	t.Run("HTTP port", func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{})
		web := strings.TrimPrefix(b.WebServiceURL(), "http://")
		c, err := NewClient(ClientOptions{URL: "pulsar://" + web, OperationTimeout: 5 * time.Second, Logger: clientLogger()})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		_, err = c.CreateProducer(ProducerOptions{Topic: "http-port"})
		if !errors.Is(err, ErrConnectionFailed) {
			t.Fatalf("err = %v, want ErrConnectionFailed", err)
		}
		for _, want := range []string{"looks like an HTTP port", "pulsar://" + web, "http://" + web, ":6650"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q does not mention %s", err, want)
			}
		}
		if strings.Contains(err.Error(), "frame too large") {
			t.Errorf("%q reports the HTTP answer as a frame size", err)
		}
		t.Logf("failed in %v: %v", time.Since(start).Round(time.Millisecond), err)
	})
}
