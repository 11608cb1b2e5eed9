package conn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// challengeBroker is the broker end of a pipe that speaks the handshake
// and AUTH_CHALLENGE by hand.
type challengeBroker struct {
	t  *testing.T
	nc net.Conn
	r  *wire.Reader
}

func (b *challengeBroker) read() *proto.BaseCommand {
	f, err := b.r.ReadFrame()
	require.NoError(b.t, err)
	return f.Cmd
}

func (b *challengeBroker) write(cmd *proto.BaseCommand) {
	frame, err := wire.AppendCommand(nil, cmd)
	require.NoError(b.t, err)
	_, err = b.nc.Write(frame)
	require.NoError(b.t, err)
}

func (b *challengeBroker) challenge() {
	b.write(&proto.BaseCommand{Type: proto.BaseCommand_AUTH_CHALLENGE.Enum(), AuthChallenge: &proto.CommandAuthChallenge{
		ServerVersion: gproto.String("test"), ProtocolVersion: gproto.Int32(protocolVersion),
		Challenge: &proto.AuthData{AuthMethodName: gproto.String("token"), AuthData: []byte("refresh")}}})
}

func (b *challengeBroker) connected() {
	b.write(&proto.BaseCommand{Type: proto.BaseCommand_CONNECTED.Enum(), Connected: &proto.CommandConnected{
		ServerVersion: gproto.String("test"), ProtocolVersion: gproto.Int32(protocolVersion)}})
}

// dialChallenged dials a Conn whose broker end the test drives; tokens are
// "tok-1", "tok-2", ... unless fail is set.
func dialChallenged(t *testing.T, fail *atomic.Bool, broker func(*challengeBroker)) (*Conn, error) {
	client, server := net.Pipe()
	b := &challengeBroker{t: t, nc: server, r: wire.NewReader(server, wire.DefaultMaxFrameSize)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		broker(b)
	}()
	t.Cleanup(func() { _ = server.Close(); <-done })
	var n atomic.Int64
	return Dial(context.Background(), "broker:6650", Options{
		Dial:       func(context.Context, string, string) (net.Conn, error) { return client, nil },
		AuthMethod: "token", OperationTimeout: 5 * time.Second,
		AuthData: func() ([]byte, error) {
			if fail != nil && fail.Load() {
				return nil, errors.New("token source down")
			}
			return fmt.Appendf(nil, "tok-%d", n.Add(1)), nil
		},
	})
}

func TestAuthChallengeAnsweredWithFreshCredentials(t *testing.T) {
	responses := make(chan *proto.CommandAuthResponse, 4)
	c, err := dialChallenged(t, nil, func(b *challengeBroker) {
		connect := b.read().GetConnect()
		assert.Equal(t, "token", connect.GetAuthMethodName())
		assert.Equal(t, "tok-1", string(connect.GetAuthData()))
		assert.True(t, connect.GetFeatureFlags().GetSupportsAuthRefresh())
		b.connected()
		b.challenge()
		responses <- b.read().GetAuthResponse()
		b.challenge()
		responses <- b.read().GetAuthResponse()
	})
	require.NoError(t, err)
	defer c.Close()
	for _, want := range []string{"tok-2", "tok-3"} {
		r := <-responses
		require.NotNil(t, r, "AUTH_RESPONSE")
		assert.Equal(t, "token", r.GetResponse().GetAuthMethodName())
		assert.Equal(t, want, string(r.GetResponse().GetAuthData()))
		assert.Equal(t, protocolVersion, r.GetProtocolVersion())
		assert.Equal(t, "pulsargo", r.GetClientVersion())
	}
	assert.NoError(t, c.Err())
}

func TestAuthChallengeDuringHandshake(t *testing.T) {
	c, err := dialChallenged(t, nil, func(b *challengeBroker) {
		b.read() // CONNECT
		b.challenge()
		r := b.read().GetAuthResponse()
		assert.Equal(t, "tok-2", string(r.GetResponse().GetAuthData()))
		b.connected()
	})
	require.NoError(t, err)
	c.Close()

	// A broker that never stops challenging fails the handshake.
	_, err = dialChallenged(t, nil, func(b *challengeBroker) {
		b.read()
		for range maxHandshakeChallenges + 1 {
			b.challenge()
			if b.read().GetAuthResponse() == nil {
				return
			}
		}
	})
	assert.ErrorIs(t, err, ErrHandshake)
}

func TestAuthChallengeWithoutCredentialsClosesTheConnection(t *testing.T) {
	var fail atomic.Bool
	c, err := dialChallenged(t, &fail, func(b *challengeBroker) {
		b.read()
		b.connected()
		fail.Store(true)
		b.challenge()
		_, _ = b.r.ReadFrame() // the client closes instead of answering
	})
	require.NoError(t, err)
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("connection still open")
	}
	assert.ErrorIs(t, c.Err(), ErrHandshake)
}
