package consumer

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/proto"
)

// One tracking record per entry across its deliveries (issue #38): the
// cases where a redelivered batch meets the record of its earlier copy.

// TestCumulativeAckWithdrawsRedeliveredCopy: on Exclusive, a batch message
// nacked and its batch redelivered behind a later entry (every message not
// acknowledged: all three); once one redelivered copy was handed out, a
// cumulative ack of the later entry covers the copies still queued, which
// are withdrawn rather than handed out (an ack of them would find nothing
// to update).
func TestCumulativeAckWithdrawsRedeliveredCopy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		if _, err := p.SendBatch(ctxT(t), [][]byte{[]byte("a"), []byte("b"), []byte("c")}, compress.NONE); err != nil {
			t.Fatal(err)
		}
		later, err := p.Send(ctxT(t), []byte("later"), "")
		if err != nil {
			t.Fatal(err)
		}
		e, out := v.engine(topic, "s", func(o *Options[*Message]) { o.NackDelay = time.Second })
		ms := recvN(t, out, 4)
		e.Nack(ms[0].ID)
		time.Sleep(2 * time.Second)
		synctest.Wait() // the redelivered batch is queued
		if m := recv(t, out); string(m.Payload) != "a" || m.RedeliveryCount != 1 {
			t.Fatalf("got %q (count %d), want a redelivered", m.Payload, m.RedeliveryCount)
		}
		if err := e.AckCumulative(ctxT(t), ms[3].ID); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", ackedThrough(later))
		expectNone(t, out, time.Second)
	})
}

// TestRedeliveryKeepsBatchAcks: on Exclusive, messages of a batch
// acknowledged before its redelivery (an ack timeout here) are not
// delivered again, and acking the rest acknowledges the entry. (On Shared
// the record is let go at the timeout: see TestSharedGivenBackRecordsReleased.)
func TestRedeliveryKeepsBatchAcks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		entry, err := p.SendBatch(ctxT(t), [][]byte{[]byte("a"), []byte("b"), []byte("c")}, compress.NONE)
		if err != nil {
			t.Fatal(err)
		}
		e, out := v.engine(topic, "s", func(o *Options[*Message]) { o.AckTimeout = time.Second })
		ms := recvN(t, out, 3)
		for _, m := range ms[:2] {
			if err := e.Ack(ctxT(t), m.ID); err != nil {
				t.Fatal(err)
			}
		}
		m := recv(t, out) // "c" again, after the ack timeout
		if string(m.Payload) != "c" || m.RedeliveryCount != 1 {
			t.Fatalf("redelivered %q (count %d), want only c", m.Payload, m.RedeliveryCount)
		}
		expectNone(t, out, 100*time.Millisecond)
		if err := e.Ack(ctxT(t), m.ID); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", ackedThrough(entry))
		// The first copy of "c" acknowledged late: known no more, no error.
		if err := e.Ack(ctxT(t), ms[2].ID); err != nil {
			t.Fatalf("ack of a copy acknowledged already: %v", err)
		}
	})
}

// TestSharedGivenBackRecordsReleased: on Shared (and Key_Shared) a message
// given back by a nack may be redelivered to another consumer, so its
// record must not wait here for an ack: a plain message's is forgotten at
// the nack, a batch's once each message is acknowledged or given back.
// On Exclusive both records stay, for their redeliveries to join. Either
// way the redeliveries are acknowledged and complete the subscription (on
// Shared the batch comes back whole: b and c again, as without the record
// no client could tell them apart).
func TestSharedGivenBackRecordsReleased(t *testing.T) {
	for _, tc := range []struct {
		typ         proto.CommandSubscribe_SubType
		want        int
		redelivered []string
	}{
		{proto.CommandSubscribe_Shared, 0, []string{"a", "b", "c", "plain"}},
		{proto.CommandSubscribe_Key_Shared, 0, []string{"a", "b", "c", "plain"}},
		{proto.CommandSubscribe_Exclusive, 2, []string{"a", "plain"}},
	} {
		t.Run(tc.typ.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := newEnv(t)
				topic := newTopic(t)
				p := v.producer(topic)
				if _, err := p.SendBatch(ctxT(t), [][]byte{[]byte("a"), []byte("b"), []byte("c")}, compress.NONE); err != nil {
					t.Fatal(err)
				}
				last, err := p.Send(ctxT(t), []byte("plain"), "")
				if err != nil {
					t.Fatal(err)
				}
				e, out := v.engine(topic, "s", func(o *Options[*Message]) {
					o.SubType = tc.typ
					o.NackDelay = time.Hour // no redelivery during the test
				})
				ms := recvN(t, out, 4)
				e.Nack(ms[0].ID)
				for _, m := range ms[1:3] {
					if err := e.Ack(ctxT(t), m.ID); err != nil {
						t.Fatal(err)
					}
				}
				e.Nack(ms[3].ID)
				var n int
				if err := e.call(func() { n = len(e.tracked) }); err != nil {
					t.Fatal(err)
				}
				if n != tc.want {
					t.Fatalf("records kept after the nacks: %d, want %d", n, tc.want)
				}
				time.Sleep(2 * time.Hour)
				again := recvN(t, out, len(tc.redelivered))
				if got := payloads(again); !slices.Equal(got, tc.redelivered) {
					t.Fatalf("redelivered %v, want %v", got, tc.redelivered)
				}
				for _, m := range again {
					if err := e.Ack(ctxT(t), m.ID); err != nil {
						t.Fatal(err)
					}
				}
				v.waitCursor(topic, "s", ackedThrough(last))
			})
		})
	}
}
