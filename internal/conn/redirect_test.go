package conn

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// redirector is a minimal broker that answers every lookup with a redirect
// to target, as a broker that does not own the topic does.
func redirector(t *testing.T, target string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	serveRedirects(t, ln, target)
	return ln.Addr().String()
}

// serveRedirects runs the redirector on ln.
func serveRedirects(t *testing.T, ln net.Listener, target string) {
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				r := wire.NewReader(nc, 0)
				for {
					f, err := r.ReadFrame()
					if err != nil {
						return
					}
					var resp *proto.BaseCommand
					switch f.Cmd.GetType() {
					case proto.BaseCommand_CONNECT:
						resp = &proto.BaseCommand{Type: proto.BaseCommand_CONNECTED.Enum(), Connected: &proto.CommandConnected{
							ServerVersion: gproto.String("redirector"), ProtocolVersion: gproto.Int32(20)}}
					case proto.BaseCommand_LOOKUP:
						resp = &proto.BaseCommand{Type: proto.BaseCommand_LOOKUP_RESPONSE.Enum(), LookupTopicResponse: &proto.CommandLookupTopicResponse{
							RequestId: f.Cmd.GetLookupTopic().RequestId, Response: proto.CommandLookupTopicResponse_Redirect.Enum(),
							BrokerServiceUrl: gproto.String("pulsar://" + target), Authoritative: gproto.Bool(true)}}
					default:
						continue
					}
					b, _ := wire.AppendCommand(nil, resp)
					if _, err := nc.Write(b); err != nil {
						return
					}
				}
			}()
		}
	}()
}

func TestLookupFollowsRedirects(t *testing.T) {
	b := brokerstub.RunT(t)
	front := redirector(t, b.Addr())
	p := NewPool(Options{})
	defer p.Close()
	addr, err := p.Lookup(context.Background(), front, "persistent://public/default/moved")
	require.NoError(t, err)
	assert.Equal(t, b.Addr(), addr, "the lookup ends at the broker the redirect names")
}

func TestLookupGivesUpOnEndlessRedirects(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	serveRedirects(t, ln, ln.Addr().String()) // redirects to itself forever
	p := NewPool(Options{})
	defer p.Close()
	_, err = p.Lookup(context.Background(), ln.Addr().String(), "t")
	assert.ErrorIs(t, err, ErrTooManyRedirects)
}
