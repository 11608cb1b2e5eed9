package conn

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// heapObjectBytes is the bytes of live and not yet swept heap objects
// after a GC.
func heapObjectBytes() int64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// TestAnnouncedMaxMessageSizeIsCapped is issue #31's S2: a server announces
// max_message_size 2e9 and then sends a frame header claiming 1.9e9 bytes
// (and two bytes of it). The client caps the announced size at its own
// maximum, refuses the frame from its header and closes the connection,
// with no allocation by the claimed size (the heap grows by less than
// 64 MiB; it grew by 1.9 GB before the cap).
func TestAnnouncedMaxMessageSizeIsCapped(t *testing.T) {
	client, server := net.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- func() error {
			r := wire.NewReader(server, wire.DefaultMaxFrameSize)
			if _, err := r.ReadFrame(); err != nil { // CONNECT
				return err
			}
			frame, err := wire.AppendCommand(nil, &proto.BaseCommand{Type: proto.BaseCommand_CONNECTED.Enum(),
				Connected: &proto.CommandConnected{ServerVersion: gproto.String("hostile"),
					ProtocolVersion: gproto.Int32(protocolVersion), MaxMessageSize: gproto.Int32(2e9)}})
			if err != nil {
				return err
			}
			if _, err := server.Write(frame); err != nil {
				return err
			}
			var hdr [6]byte
			binary.BigEndian.PutUint32(hdr[:], 1.9e9)
			_, _ = server.Write(hdr[:]) // fails once the client closed
			return nil
		}()
	}()
	t.Cleanup(func() { _ = server.Close() })
	before := heapObjectBytes()
	c, err := Dial(context.Background(), "hostile:6650", Options{
		Dial: func(context.Context, string, string) (net.Conn, error) { return client, nil }, OperationTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.MaxMessageSize(); got != MaxMessageSizeCap {
		t.Errorf("MaxMessageSize = %d, want the cap %d", got, MaxMessageSizeCap)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	// The header is read: the reader either refused the frame (and the
	// connection closes) or waits for the rest of it.
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if grew := heapObjectBytes() - before; grew > 64<<20 {
			t.Fatalf("heap grew by %d MiB for a frame header", grew>>20)
		}
		if c.Err() != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the connection did not close on a frame above the limit")
		}
	}
	if !errors.Is(c.Err(), wire.ErrFrameTooLarge) {
		t.Fatalf("closed with %v, want ErrFrameTooLarge", c.Err())
	}
}
