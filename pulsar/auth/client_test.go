package auth_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar"
	"github.com/pulsargo/sdk/pulsar/auth"
)

// rotating is an application's own Provider, as code written for the
// official client implements one: it embeds a token provider and counts
// the data asked for.
type rotating struct {
	auth.Provider
	asked atomic.Int32
}

func (r *rotating) GetData() ([]byte, error) {
	r.asked.Add(1)
	return r.Provider.GetData()
}

func TestPulsarAuthProvidersConnect(t *testing.T) {
	b := brokerstub.RunT(t, brokerstub.Options{Authenticate: func(method string, data []byte) error {
		if method != "token" || string(data) != "s3cret" {
			return errors.New("bad token")
		}
		return nil
	}})
	own := &rotating{Provider: auth.NewAuthenticationToken("s3cret")}
	fromName, err := auth.NewProvider("token", "token:s3cret")
	require.NoError(t, err)
	for name, a := range map[string]auth.Provider{
		"auth.NewAuthenticationToken":   auth.NewAuthenticationToken("s3cret"),
		"auth.NewProvider":              fromName,
		"pulsar.NewAuthenticationToken": pulsar.NewAuthenticationToken("s3cret"),
		"own provider":                  own,
	} {
		t.Run(name, func(t *testing.T) {
			c, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL(), Authentication: a, OperationTimeout: 5 * time.Second})
			require.NoError(t, err)
			defer c.Close()
			p, err := c.CreateProducer(pulsar.ProducerOptions{Topic: "auth-" + string(rune('a'+len(name)%26))})
			require.NoError(t, err)
			defer p.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err = p.Send(ctx, &pulsar.ProducerMessage{Payload: []byte("x")})
			require.NoError(t, err)
		})
	}
	require.Positive(t, own.asked.Load(), "the client must use the provider's GetData")

	_, err = pulsar.NewClient(pulsar.ClientOptions{URL: b.URL(), Authentication: auth.NewAuthenticationAthenz("", "", "", "", "", "", "", "", "", "", "")})
	require.ErrorIs(t, err, pulsar.ErrAthenzNotSupported)
	c, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL(), Authentication: auth.NewAuthenticationToken("wrong"), OperationTimeout: 2 * time.Second})
	require.NoError(t, err)
	defer c.Close()
	_, err = c.CreateProducer(pulsar.ProducerOptions{Topic: "auth-bad"})
	var se *pulsar.ServerError
	require.ErrorAs(t, err, &se)
	require.Equal(t, "AuthenticationError", se.Code)
}
