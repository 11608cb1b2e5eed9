package brokerstub

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/proto"
)

// TestUnloadFlushesAcksBeforeClientsReconnect: Unload makes acknowledgments
// durable before it tells the clients to go, as Pulsar closes its cursors
// with the topic, so a consumer that reconnects at once (and loads the
// topic again from the store) is not sent again what it acknowledged. The
// cursor a reload reads when the first CLOSE_* command leaves must be the
// one Unload ends with. Before the fix the flush came after, racing with
// the clients' reconnection; the test unloads twenty topics, and without
// the fix fails in most runs (the race is lost in about one unload in six
// here), never with it.
func TestUnloadFlushesAcksBeforeClientsReconnect(t *testing.T) {
	b := RunT(t)
	var mu sync.Mutex
	atClose := map[string][]byte{}
	b.Intercept(func(ev Event) Action {
		if ev.Dir == Outbound && ev.Type == CmdCloseProducer {
			mu.Lock()
			defer mu.Unlock()
			for topic := range atClose {
				if atClose[topic] == nil {
					st, _, err := b.eng.Store().LoadCursor(topic, "s")
					if err == nil {
						atClose[topic] = st
					}
				}
			}
		}
		return Action{}
	})
	for i := range 20 {
		topic := fmt.Sprintf("persistent://public/default/unload-acks-%d", i)
		c := dialRaw(t, b)
		c.connect()
		ps := rawProduce(t, c, topic, []string{"a"}, []string{"b"}, []string{"c"})
		rawSubscribe(t, c, topic, 1, 10)
		for range ps {
			c.expect(proto.BaseCommand_MESSAGE)
		}
		// The first mark-delete is persisted at once (rate limit); the
		// second waits for the periodic flush, a minute away.
		rawAck(c, 1, ps[0], nil, 1)
		rawAck(c, 1, ps[1], nil, 2)
		cur, persisted, err := b.Cursor(topic, "s")
		require.NoError(t, err)
		require.NotEqual(t, cur.MarkDelete, persisted.MarkDelete, "precondition: the second ack waits for the flush")

		mu.Lock()
		atClose[topic] = nil
		mu.Unlock()
		require.NoError(t, b.Unload(topic))
		c.expect(proto.BaseCommand_CLOSE_PRODUCER)
		final, ok, err := b.eng.Store().LoadCursor(topic, "s")
		require.NoError(t, err)
		require.True(t, ok)
		mu.Lock()
		got := atClose[topic]
		delete(atClose, topic)
		mu.Unlock()
		if !bytes.Equal(got, final) {
			t.Fatalf("unload %d: cursor in the store when the clients were told to go: %x; after Unload: %x", i, got, final)
		}
	}
}
