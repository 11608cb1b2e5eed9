package brokerstub

import (
	"net"
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// rawClient speaks the protocol frame by frame, for tests of what the broker
// answers to exact (and broken) input.
type rawClient struct {
	t  testing.TB
	nc net.Conn
	r  *wire.Reader
}

func dialRaw(t testing.TB, b *Broker) *rawClient {
	t.Helper()
	nc, err := net.Dial("tcp", b.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	return dialRawOn(t, nc)
}

// dialRawOn speaks the raw protocol on an open connection.
func dialRawOn(t testing.TB, nc net.Conn) *rawClient {
	return &rawClient{t: t, nc: nc, r: wire.NewReader(nc, 0)}
}

// connect performs the CONNECT handshake.
func (c *rawClient) connect() *proto.CommandConnected {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_CONNECT.Enum(), Connect: &proto.CommandConnect{
		ClientVersion: gproto.String("raw-test"), ProtocolVersion: gproto.Int32(20)}})
	return c.expect(proto.BaseCommand_CONNECTED).GetConnected()
}

func (c *rawClient) Send(cmd *proto.BaseCommand) {
	c.t.Helper()
	b, err := wire.AppendCommand(nil, cmd)
	if err != nil {
		c.t.Fatal(err)
	}
	c.writeRaw(b)
}

func (c *rawClient) sendPayload(cmd *proto.BaseCommand, md *proto.MessageMetadata, payload []byte) {
	c.t.Helper()
	b, err := wire.AppendPayloadFrame(nil, cmd, md, payload)
	if err != nil {
		c.t.Fatal(err)
	}
	c.writeRaw(b)
}

func (c *rawClient) writeRaw(b []byte) {
	c.t.Helper()
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatal(err)
	}
}

// next reads one frame, failing the test after 5 s.
func (c *rawClient) next() (wire.Frame, error) {
	_ = c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	return c.r.ReadFrame()
}

// expect reads frames until one of type t arrives (skipping pings).
func (c *rawClient) expect(t proto.BaseCommand_Type) *proto.BaseCommand {
	c.t.Helper()
	for {
		f, err := c.next()
		if err != nil {
			c.t.Fatalf("waiting for %s: %v", t, err)
		}
		if f.Cmd.GetType() == proto.BaseCommand_PING {
			continue
		}
		if f.Cmd.GetType() != t {
			c.t.Fatalf("want %s, got %s", t, f.Cmd)
		}
		return f.Cmd
	}
}

// expectClosed checks that the broker closed the connection.
func (c *rawClient) expectClosed() {
	c.t.Helper()
	for {
		f, err := c.next()
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				c.t.Fatal("connection still open")
			}
			return
		}
		if f.Cmd.GetType() != proto.BaseCommand_PING {
			c.t.Fatalf("want close, got %s", f.Cmd)
		}
	}
}

// rawSubscriber dials br and subscribes consumer 1 to topic (Exclusive
// subscription "s", from the earliest message), giving it permits when
// permits > 0.
func rawSubscriber(t testing.TB, br *Broker, topic string, permits uint32) *rawClient {
	t.Helper()
	c := dialRaw(t, br)
	c.connect()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &topic, Subscription: gproto.String("s"), SubType: proto.CommandSubscribe_Exclusive.Enum(),
		ConsumerId: gproto.Uint64(1), RequestId: gproto.Uint64(1), InitialPosition: proto.CommandSubscribe_Earliest.Enum()}})
	c.expect(proto.BaseCommand_SUCCESS)
	if permits > 0 {
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{
			ConsumerId: gproto.Uint64(1), MessagePermits: gproto.Uint32(permits)}})
	}
	return c
}

// rawProducer dials br and attaches producer 1 to topic; it returns the
// client and the producer name the broker gave.
func rawProducer(t testing.TB, br *Broker, topic string) (*rawClient, string) {
	t.Helper()
	c := dialRaw(t, br)
	c.connect()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: &topic, ProducerId: gproto.Uint64(1), RequestId: gproto.Uint64(1)}})
	return c, c.expect(proto.BaseCommand_PRODUCER_SUCCESS).GetProducerSuccess().GetProducerName()
}
