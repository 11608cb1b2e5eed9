package producer

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

// TestFlushWaitsForOlderEntries: a broker SEND_ERROR can fail the newest
// entry before older ones are acknowledged; Flush must still wait for the
// older ones, and for their callbacks.
func TestFlushWaitsForOlderEntries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc, clk := &fakeConn{maxMsg: 1000}, newFakeClock()
		p := newTestProducer(t, fc, clk, Options{DisableBatching: true})
		cb0, ch0 := collect()
		p.SendAsync(context.Background(), &Message{Payload: []byte("a")}, cb0)
		p.SendAsync(context.Background(), &Message{Payload: []byte("b")}, func(messageid.MessageID, error) {})
		flushed := make(chan error, 1)
		go func() { flushed <- p.Flush(context.Background()) }()
		synctest.Wait() // Flush waits for the newest entry
		fc.handler().SendError(&proto.CommandSendError{ProducerId: gproto.Uint64(1), SequenceId: gproto.Uint64(1),
			Error: proto.ServerError_PersistenceError.Enum(), Message: gproto.String("disk")})
		synctest.Wait()
		select {
		case err := <-flushed:
			t.Fatalf("Flush returned (%v) before the older entry was acknowledged", err)
		default:
		}
		fc.receipt(0, 1)
		var se *conn.ServerError
		if err := <-flushed; !errors.As(err, &se) || se.Code != proto.ServerError_PersistenceError {
			t.Fatalf("Flush: %v, want the last entry's broker error", err)
		}
		select {
		case r := <-ch0:
			if r.err != nil {
				t.Errorf("older message: %v", r.err)
			}
		default:
			t.Error("Flush returned before the older message's callback ran")
		}
	})
}
