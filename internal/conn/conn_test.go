package conn

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/proto"
)

func TestLookupAndMetadataAgainstStub(t *testing.T) {
	b := brokerstub.RunT(t)
	require.NoError(t, b.CreatePartitionedTopic("orders", 4))
	p := NewPool(Options{})
	defer p.Close()
	ctx := context.Background()
	addr, err := p.Lookup(ctx, b.Addr(), "persistent://public/default/x")
	require.NoError(t, err)
	assert.Equal(t, b.Addr(), addr)
	n, err := p.PartitionedMetadata(ctx, b.Addr(), "orders")
	require.NoError(t, err)
	assert.Equal(t, 4, n)

	c1, err := p.Get(ctx, addr)
	require.NoError(t, err)
	c2, err := p.Get(ctx, addr)
	require.NoError(t, err)
	assert.Same(t, c1, c2, "one connection per broker")
	assert.Equal(t, 5<<20, c1.MaxMessageSize())
}

func TestInMemoryDialAndServerError(t *testing.T) {
	b := brokerstub.RunT(t)
	c, err := Dial(context.Background(), "stub", Options{Dial: b.Dial})
	require.NoError(t, err)
	defer c.Close()
	rid := c.NewRequestID()
	_, err = c.Request(context.Background(), rid, &proto.BaseCommand{Type: proto.BaseCommand_SEEK.Enum(), Seek: &proto.CommandSeek{
		ConsumerId: gproto.Uint64(42), RequestId: &rid, MessagePublishTime: gproto.Uint64(1)}})
	var se *ServerError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, proto.ServerError_ConsumerNotFound, se.Code)
	assert.False(t, IsRetriable(err))
}

func TestRequestTimesOutWhenBrokerDropsIt(t *testing.T) {
	b := brokerstub.RunT(t)
	b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
		return brokerstub.Action{Drop: ev.Type == "LOOKUP"}
	})
	c, err := Dial(context.Background(), b.Addr(), Options{OperationTimeout: 100 * time.Millisecond})
	require.NoError(t, err)
	defer c.Close()
	rid := c.NewRequestID()
	_, err = c.Request(context.Background(), rid, &proto.BaseCommand{Type: proto.BaseCommand_LOOKUP.Enum(),
		LookupTopic: &proto.CommandLookupTopic{Topic: gproto.String("t"), RequestId: &rid}})
	assert.ErrorIs(t, err, ErrTimeout)
	assert.True(t, IsRetriable(err))
}

type prodRecorder struct {
	receipts chan *proto.CommandSendReceipt
	closed   chan struct{}
}

func (r *prodRecorder) Receipt(m *proto.CommandSendReceipt) { r.receipts <- m }
func (r *prodRecorder) SendError(*proto.CommandSendError)   {}
func (r *prodRecorder) Closed()                             { close(r.closed) }
func (r *prodRecorder) ConnectionClosed()                   {}

func TestProducerRoutingAndBrokerClose(t *testing.T) {
	b := brokerstub.RunT(t)
	c, err := Dial(context.Background(), b.Addr(), Options{})
	require.NoError(t, err)
	defer c.Close()
	topic := "persistent://public/default/route"
	rid := c.NewRequestID()
	_, err = c.Request(context.Background(), rid, &proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: &topic, ProducerId: gproto.Uint64(1), RequestId: &rid}})
	require.NoError(t, err)
	rec := &prodRecorder{receipts: make(chan *proto.CommandSendReceipt, 1), closed: make(chan struct{})}
	require.True(t, c.RegisterProducer(1, rec))
	require.NoError(t, c.SendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
		ProducerId: gproto.Uint64(1), SequenceId: gproto.Uint64(0)}},
		&proto.MessageMetadata{ProducerName: gproto.String("p"), SequenceId: gproto.Uint64(0), PublishTime: gproto.Uint64(1)}, []byte("x")))
	select {
	case r := <-rec.receipts:
		assert.Equal(t, uint64(0), r.GetSequenceId())
	case <-time.After(5 * time.Second):
		t.Fatal("no receipt")
	}
	require.NoError(t, b.Unload(topic))
	select {
	case <-rec.closed:
	case <-time.After(5 * time.Second):
		t.Fatal("broker close not routed")
	}
}

func TestConnectionCloseFailsWaiters(t *testing.T) {
	b := brokerstub.RunT(t)
	dropped := make(chan struct{}, 1)
	b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
		if ev.Type != brokerstub.CmdLookup {
			return brokerstub.Action{}
		}
		select {
		case dropped <- struct{}{}:
		default:
		}
		return brokerstub.Action{Drop: true}
	})
	c, err := Dial(context.Background(), b.Addr(), Options{})
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() {
		rid := c.NewRequestID()
		_, err := c.Request(context.Background(), rid, &proto.BaseCommand{Type: proto.BaseCommand_LOOKUP.Enum(),
			LookupTopic: &proto.CommandLookupTopic{Topic: gproto.String("t"), RequestId: &rid}})
		errc <- err
	}()
	<-dropped // the request is written and waiting for its answer
	require.NoError(t, b.Restart())
	select {
	case err := <-errc:
		assert.True(t, errors.Is(err, ErrClosed), "%v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("waiter not failed")
	}
	<-c.Done()
}

func TestHostPort(t *testing.T) {
	for in, want := range map[string]string{
		"pulsar://localhost:6650":   "localhost:6650",
		"pulsar://a:1,b:2":          "a:1",
		"pulsar://broker":           "broker:6650",
		"pulsar+ssl://broker":       "broker:6651",
		"pulsar+ssl://broker:443/x": "broker:443",
	} {
		got, err := HostPort(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"http://x", "pulsar://", "::"} {
		_, err := HostPort(bad)
		assert.Error(t, err, bad)
	}
}
