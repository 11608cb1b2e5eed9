package brokerstub

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/protocol"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/stretchr/testify/require"
)

// wait blocks while more than pendingSendBytes are taken, returns once
// enough are given back, and gives up when done closes.
func TestSendBudgetWaitsForRoom(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b protocol.SendBudget
		done := make(chan struct{})
		require.True(t, b.Wait(done), "an empty budget has room")
		b.Take(protocol.PendingSendBytes)
		require.True(t, b.Wait(done), "a full budget still has room for what it holds")
		b.Take(1)

		returned := make(chan bool, 1)
		go func() { returned <- b.Wait(done) }()
		synctest.Wait()
		select {
		case <-returned:
			t.Fatal("wait returned while the budget was over")
		default:
		}
		b.Give(1)
		synctest.Wait()
		require.True(t, <-returned)

		b.Take(2)
		go func() { returned <- b.Wait(done) }()
		synctest.Wait()
		close(done)
		synctest.Wait()
		require.False(t, <-returned, "wait returned true once done closed")
	})
}

// A connection whose topic lags stops reading SENDs once it holds
// pendingSendBytes of them, rather than reading (and allocating a buffer
// for) every frame its producer pipelines; once the topic catches up,
// every SEND gets its receipt.
func TestConnectionStopsReadingWhileItsTopicLags(t *testing.T) {
	br := RunT(t, Options{KeepAliveInterval: time.Hour}) // the raw client answers no PING
	const topicName = "persistent://public/default/send-budget"
	c, frame := benchProducer(t, br, topicName, 1, make([]byte, 1<<20))
	name, err := engine.ParseTopic(topicName)
	require.NoError(t, err)
	tp, err := br.eng.GetTopic(name, false)
	require.NoError(t, err)
	var served *protocol.Conn
	br.mu.Lock()
	for sc := range br.srv.Conns {
		served = sc
	}
	br.mu.Unlock()

	// Hold the topic goroutine; the SENDs queue behind it.
	release := make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock) // before the broker's own cleanup, should the test fail
	require.True(t, tp.Do(func() { <-release }))
	const n = 40 // 40 MiB: well past the budget
	written := writeFrames(c, frame, n)
	require.Eventually(t, func() bool {
		served.Sends.Mu.Lock()
		defer served.Sends.Mu.Unlock()
		return served.Sends.Room != nil // the read loop waits for room
	}, 10*time.Second, time.Millisecond, "the connection kept reading SENDs its topic had not stored")
	served.Sends.Mu.Lock()
	held := served.Sends.Used
	served.Sends.Mu.Unlock()
	require.LessOrEqual(t, held, protocol.PendingSendBytes+len(frame), "bytes of SENDs held")
	require.Less(t, len(tp.Ops), n, "SENDs queued on the topic")

	unblock()
	for range n {
		c.expect(proto.BaseCommand_SEND_RECEIPT)
	}
	require.NoError(t, <-written)
}
