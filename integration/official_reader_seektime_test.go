package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOfficialReaderSeekByTimeHasNext ports the official client's
// TestReaderWithSeekByTime (pulsar/reader_test.go, v0.19.0) to brokerstub:
// a reader (earliest or latest) seeks to now over 10 messages; HasNext is
// false and nothing arrives; 10 more are sent; HasNext is true before each
// and they arrive in order; then HasNext is false again.
//
// HasNext right after SeekByTime reads consumer_mark_delete_position from
// GET_LAST_MESSAGE_ID_RESPONSE and panics when it is missing, as it was for
// readers (non-durable subscriptions). The seek must also keep the reader's
// subscription (and its reset cursor) for the reader to reattach to: the
// client resubscribes with its original start id after a seek by time.
func TestOfficialReaderSeekByTimeHasNext(t *testing.T) {
	// Mostly waiting (timeouts that must pass, rates, quiet periods), on a
	// broker and clients of its own: it waits beside the other tests.
	t.Parallel()
	for _, start := range []official.MessageID{official.EarliestMessageID(), official.LatestMessageID()} {
		t.Run(fmt.Sprint(start), func(t *testing.T) {
			b := startStub(t)
			client := officialClient(t, b.URL())
			topic := newTopic(t)
			ctx := ctxT(t)

			prod, err := client.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true})
			require.NoError(t, err)
			defer prod.Close()
			for i := range 10 {
				_, err := prod.Send(ctx, &official.ProducerMessage{Payload: fmt.Appendf(nil, "hello-%d", i)})
				require.NoError(t, err)
			}

			reader, err := client.CreateReader(official.ReaderOptions{Topic: topic, StartMessageID: start})
			require.NoError(t, err)
			defer reader.Close()

			// Publish times are milliseconds and the seek takes what is
			// older: one more ms covers a message sent in this millisecond
			// (the next ones are sent a second later, after the Next below).
			require.NoError(t, reader.SeekByTime(time.Now().Add(time.Millisecond)))

			require.False(t, reader.HasNext(), "HasNext right after seeking past every message")
			noMsg, cancel := context.WithTimeout(ctx, time.Second)
			msg, err := reader.Next(noMsg)
			cancel()
			require.Error(t, err)
			if msg != nil {
				t.Fatalf("got %q after seeking past it", msg.Payload())
			}

			for i := range 10 {
				_, err := prod.Send(ctx, &official.ProducerMessage{Payload: fmt.Appendf(nil, "hello2-%d", i)})
				require.NoError(t, err)
			}
			for i := range 10 {
				require.True(t, reader.HasNext(), "HasNext before message %d", i)
				msg, err := reader.Next(ctx)
				require.NoError(t, err)
				assert.Equal(t, fmt.Sprintf("hello2-%d", i), string(msg.Payload()))
			}
			assert.False(t, reader.HasNext(), "HasNext after the last message")
		})
	}
}
