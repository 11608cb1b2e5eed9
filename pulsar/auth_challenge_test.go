package pulsar

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/clock"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// challengeProxy sits between clients and a brokerstub (which does not
// challenge on its own), relaying frames unchanged; challenge sends every
// client an AUTH_CHALLENGE, and the AUTH_RESPONSEs come out of responses
// instead of reaching the broker.
type challengeProxy struct {
	b         *brokerstub.Broker
	responses chan *proto.CommandAuthResponse

	mu    sync.Mutex
	conns []*proxied
}

type proxied struct {
	mu   sync.Mutex // serializes writes to down
	down net.Conn   // towards the client
}

func (p *challengeProxy) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	up, err := p.b.Dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	client, down := net.Pipe()
	pc := &proxied{down: down}
	p.mu.Lock()
	p.conns = append(p.conns, pc)
	p.mu.Unlock()
	go func() { // broker -> client
		defer func() { _ = down.Close() }()
		for {
			frame, err := readRawFrame(up)
			if err != nil {
				return
			}
			pc.mu.Lock()
			_, err = down.Write(frame)
			pc.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { // client -> broker
		defer func() { _ = up.Close() }()
		for {
			frame, err := readRawFrame(down)
			if err != nil {
				return
			}
			var cmd proto.BaseCommand
			size := binary.BigEndian.Uint32(frame[4:8])
			if 8+int(size) <= len(frame) && gproto.Unmarshal(frame[8:8+size], &cmd) == nil &&
				cmd.GetType() == proto.BaseCommand_AUTH_RESPONSE {
				p.responses <- cmd.GetAuthResponse()
				continue
			}
			if _, err := up.Write(frame); err != nil {
				return
			}
		}
	}()
	return client, nil
}

// readRawFrame reads one frame whole: its 4-byte size and what follows.
func readRawFrame(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n < 4 || n > wire.DefaultMaxFrameSize {
		return nil, fmt.Errorf("frame of %d bytes", n)
	}
	frame := make([]byte, 4+n)
	copy(frame, hdr[:])
	_, err := io.ReadFull(r, frame[4:])
	return frame, err
}

func (p *challengeProxy) challenge(t *testing.T) {
	frame, err := wire.AppendCommand(nil, &proto.BaseCommand{Type: proto.BaseCommand_AUTH_CHALLENGE.Enum(),
		AuthChallenge: &proto.CommandAuthChallenge{Challenge: &proto.AuthData{
			AuthMethodName: gproto.String("token"), AuthData: []byte("refresh")}}})
	require.NoError(t, err)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pc := range p.conns {
		pc.mu.Lock()
		_, _ = pc.down.Write(frame)
		pc.mu.Unlock()
	}
}

func TestOAuth2TokenRefreshedOnAuthChallenge(t *testing.T) {
	iss := newFakeIssuer(t)
	var connects []string
	var mu sync.Mutex
	b := brokerstub.RunT(t, brokerstub.Options{Authenticate: func(method string, data []byte) error {
		mu.Lock()
		connects = append(connects, string(data))
		mu.Unlock()
		if method != "token" || !strings.HasPrefix(string(data), "tok-") {
			return errors.New("bad token")
		}
		return nil
	}})
	proxy := &challengeProxy{b: b, responses: make(chan *proto.CommandAuthResponse, 4)}
	a, err := newOAuth2ForTest(iss.params(t))
	require.NoError(t, err)
	clk := clock.NewFake(time.Now())
	a.SetClock(clk)
	c, err := NewClient(ClientOptions{URL: b.URL(), Dialer: proxy.dial, Authentication: a})
	require.NoError(t, err)
	defer c.Close()
	p, err := c.CreateProducer(ProducerOptions{Topic: "challenged"})
	require.NoError(t, err)
	defer p.Close()

	// The token is still fresh: the challenge is answered from the cache.
	proxy.challenge(t)
	r := <-proxy.responses
	assert.Equal(t, "token", r.GetResponse().GetAuthMethodName())
	assert.Equal(t, "tok-1", string(r.GetResponse().GetAuthData()))

	// Past its refresh time the challenge makes the client fetch a new one.
	clk.Advance(90 * time.Second)
	proxy.challenge(t)
	r = <-proxy.responses
	assert.Equal(t, "tok-2", string(r.GetResponse().GetAuthData()))
	assert.Equal(t, 2, iss.grants())

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = p.Send(ctx, &ProducerMessage{Payload: []byte("after the challenge")})
	require.NoError(t, err, "the connection stays up")
	mu.Lock()
	assert.Equal(t, []string{"tok-1"}, connects, "one CONNECT: the refresh went over the same connection")
	mu.Unlock()
}
