package consumer

import (
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

// chunkTopic holds "m-0", a chunked message X (3 chunks) with the plain
// message "y" between its first and second chunk, and "m-2". Completion
// order: m-0, y, X, m-2.
type chunkTopic struct {
	topic     string
	x         []byte
	xID       messageid.ChunkMessageID
	xChunks   []messageid.ID
	m0, y, m2 messageid.ID
}

func makeChunkTopic(t *testing.T, v *env) chunkTopic {
	t.Helper()
	ct := chunkTopic{topic: newTopic(t), x: noise(3000, 42)}
	p := v.producer(ct.topic)
	var err error
	if ct.m0, err = p.Send(ctxT(t), []byte("m-0"), ""); err != nil {
		t.Fatal(err)
	}
	cs, _ := p.Chunks(ct.x, 1000, compress.NONE)
	for i, c := range cs {
		id, err := p.SendRaw(ctxT(t), c.Meta, c.Payload)
		if err != nil {
			t.Fatal(err)
		}
		ct.xChunks = append(ct.xChunks, id)
		if i == 0 {
			if ct.y, err = p.Send(ctxT(t), []byte("y"), ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	ct.xID = messageid.NewChunk(ct.xChunks[0], ct.xChunks[2])
	if ct.m2, err = p.Send(ctxT(t), []byte("m-2"), ""); err != nil {
		t.Fatal(err)
	}
	return ct
}

func names(ms []*Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		if len(m.Payload) == 3000 {
			out[i] = "X"
		} else {
			out[i] = string(m.Payload)
		}
	}
	return out
}

func TestSeekToChunkID(t *testing.T) {
	for _, inclusive := range []bool{true, false} {
		t.Run(fmt.Sprintf("inclusive=%v", inclusive), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := newEnv(t)
				ct := makeChunkTopic(t, v)
				e, out := v.engine(ct.topic, "s", func(o *Options[*Message]) { o.StartInclusive = inclusive })
				msgs := recvN(t, out, 4)
				if got := names(msgs); !slices.Equal(got, []string{"m-0", "y", "X", "m-2"}) {
					t.Fatalf("first pass %v", got)
				}
				for _, m := range msgs {
					if err := e.Ack(ctxT(t), m.ID); err != nil {
						t.Fatal(err)
					}
				}
				// The id as a user would store it.
				id, err := messageid.Deserialize(msgs[2].ID.Serialize())
				if err != nil {
					t.Fatal(err)
				}
				if err := e.Seek(ctxT(t), id); err != nil {
					t.Fatal(err)
				}
				// The whole of X next, inclusive or not; not y, which lies
				// between its chunks.
				want := []string{"X", "m-2"}
				got := recvN(t, out, len(want))
				if !slices.Equal(names(got), want) {
					t.Fatalf("after seek %v, want %v", names(got), want)
				}
				sameBytes(t, got[0].Payload, ct.x)
				expectNone(t, out, 50*time.Millisecond)
			})
		})
	}
}

// TestSeekDropsQueued: messages queued before a seek are never delivered
// after it.
func TestSeekDropsQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		var ids []messageid.ID
		for i := range 10 {
			id, _ := p.Send(ctxT(t), fmt.Appendf(nil, "m-%d", i), "")
			ids = append(ids, id)
		}
		e, out := v.engine(topic, "s", nil)
		recv(t, out)
		waitFor(t, "queue filled", func() bool {
			var n int
			_ = e.call(func() { n = len(e.queue) })
			return n == 9
		})
		if err := e.Seek(ctxT(t), ids[7]); err != nil {
			t.Fatal(err)
		}
		got := names(recvN(t, out, 2))
		if !slices.Equal(got, []string{"m-8", "m-9"}) {
			t.Fatalf("after seek %v", got)
		}
		expectNone(t, out, 50*time.Millisecond)
	})
}

func TestSeekToBatchIndex(t *testing.T) {
	for _, inclusive := range []bool{true, false} {
		t.Run(fmt.Sprintf("inclusive=%v", inclusive), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := newEnv(t)
				topic := newTopic(t)
				p := v.producer(topic)
				if _, err := p.SendBatch(ctxT(t), [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d")}, compress.NONE); err != nil {
					t.Fatal(err)
				}
				e, out := v.engine(topic, "s", func(o *Options[*Message]) { o.StartInclusive = inclusive })
				msgs := recvN(t, out, 4)
				if err := e.Seek(ctxT(t), msgs[1].ID); err != nil {
					t.Fatal(err)
				}
				want := []string{"c", "d"}
				if inclusive {
					want = []string{"b", "c", "d"}
				}
				if got := names(recvN(t, out, len(want))); !slices.Equal(got, want) {
					t.Fatalf("after seek %v, want %v", got, want)
				}
			})
		})
	}
}

func TestSeekEarliestAndByTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		for i := range 3 {
			_, _ = p.Send(ctxT(t), fmt.Appendf(nil, "m-%d", i), "")
		}
		time.Sleep(20 * time.Millisecond) // publish times are milliseconds: the mark lies after m-2 (bubble time)
		mark := time.Now()
		time.Sleep(20 * time.Millisecond) // and before m-3
		for i := 3; i < 5; i++ {
			_, _ = p.Send(ctxT(t), fmt.Appendf(nil, "m-%d", i), "")
		}
		e, out := v.engine(topic, "s", nil)
		for _, m := range recvN(t, out, 5) {
			_ = e.Ack(ctxT(t), m.ID)
		}
		if err := e.SeekByTime(ctxT(t), mark); err != nil {
			t.Fatal(err)
		}
		if got := names(recvN(t, out, 2)); !slices.Equal(got, []string{"m-3", "m-4"}) {
			t.Fatalf("after seek by time %v", got)
		}
		if err := e.Seek(ctxT(t), messageid.Earliest()); err != nil {
			t.Fatal(err)
		}
		if got := names(recvN(t, out, 5)); got[0] != "m-0" {
			t.Fatalf("after seek to earliest %v", got)
		}
	})
}

func readerOpts(start messageid.MessageID, inclusive bool) func(*Options[*Message]) {
	return func(o *Options[*Message]) {
		o.NonDurable, o.Reader = true, true
		o.StartID, o.StartInclusive = start, inclusive
	}
}

func TestReaderStartAtChunkID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		ct := makeChunkTopic(t, v)
		for _, tc := range []struct {
			inclusive bool
			want      []string
		}{{true, []string{"X", "m-2"}}, {false, []string{"m-2"}}} {
			id, _ := messageid.Deserialize(ct.xID.Serialize())
			_, out := v.engine(ct.topic, fmt.Sprintf("r-%v", tc.inclusive), readerOpts(id, tc.inclusive))
			got := recvN(t, out, len(tc.want))
			if !slices.Equal(names(got), tc.want) {
				t.Fatalf("inclusive=%v: reader got %v, want %v", tc.inclusive, names(got), tc.want)
			}
			if tc.inclusive {
				sameBytes(t, got[0].Payload, ct.x)
				if !messageid.Equal(got[0].ID, ct.xID) {
					t.Errorf("id %v, want %v", got[0].ID, ct.xID)
				}
			}
			expectNone(t, out, 50*time.Millisecond)
		}
	})
}

func TestReaderStartAtPlainAndBatchIDs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		m0, _ := p.Send(ctxT(t), []byte("m-0"), "")
		batch, _ := p.SendBatch(ctxT(t), [][]byte{[]byte("b-0"), []byte("b-1"), []byte("b-2")}, compress.NONE)
		_, _ = p.Send(ctxT(t), []byte("m-2"), "")
		b1 := messageid.New(batch.LedgerID(), batch.EntryID(), 1, -1, 3)
		for i, tc := range []struct {
			start     messageid.MessageID
			inclusive bool
			want      []string
		}{
			{m0, true, []string{"m-0", "b-0"}},
			{m0, false, []string{"b-0", "b-1"}},
			{b1, true, []string{"b-1", "b-2", "m-2"}},
			{b1, false, []string{"b-2", "m-2"}},
			{messageid.Earliest(), false, []string{"m-0"}},
		} {
			_, out := v.engine(topic, fmt.Sprintf("r-%d", i), readerOpts(tc.start, tc.inclusive))
			if got := names(recvN(t, out, len(tc.want))); !slices.Equal(got, tc.want) {
				t.Errorf("start %v inclusive %v: got %v, want %v", tc.start, tc.inclusive, got, tc.want)
			}
		}
	})
}

func TestReaderHasNextAndLastID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		_, _ = p.Send(ctxT(t), []byte("m-0"), "")
		last, _ := p.Send(ctxT(t), []byte("m-1"), "")
		e, out := v.engine(topic, "r", readerOpts(messageid.Earliest(), false))
		lid, err := e.GetLastMessageID(ctxT(t))
		if err != nil || messageid.Compare(lid, last) != 0 {
			t.Fatalf("last id %v %v, want %v", lid, err, last)
		}
		for range 2 {
			if ok, err := e.HasNext(ctxT(t)); !ok || err != nil {
				t.Fatalf("HasNext = %v, %v", ok, err)
			}
			recv(t, out)
		}
		if ok, err := e.HasNext(ctxT(t)); ok || err != nil {
			t.Fatalf("HasNext at the end = %v, %v", ok, err)
		}
		latest, outL := v.engine(topic, "r2", readerOpts(messageid.Latest(), false))
		if err := latest.StartAtLastMessage(ctxT(t), false); err != nil {
			t.Fatal(err)
		}
		if ok, _ := latest.HasNext(ctxT(t)); ok {
			t.Fatal("HasNext at latest")
		}
		_, _ = p.Send(ctxT(t), []byte("new"), "")
		if m := recv(t, outL); string(m.Payload) != "new" {
			t.Fatalf("got %q", m.Payload)
		}
		incl, outI := v.engine(topic, "r3", readerOpts(messageid.Latest(), true))
		if err := incl.StartAtLastMessage(ctxT(t), true); err != nil {
			t.Fatal(err)
		}
		if m := recv(t, outI); string(m.Payload) != "new" {
			t.Fatalf("inclusive latest got %q", m.Payload)
		}
	})
}

// TestReaderReconnectResumes: after a reconnect a reader continues after
// the last message it handed out, and a chunked message that was
// incomplete at the time is delivered whole.
func TestReaderReconnectResumes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		_, _ = p.Send(ctxT(t), []byte("m-0"), "")
		payload := noise(3000, 8)
		cs, _ := p.Chunks(payload, 1000, compress.NONE)
		_, _ = p.SendRaw(ctxT(t), cs[0].Meta, cs[0].Payload)
		_, _ = p.Send(ctxT(t), []byte("m-1"), "")
		e, out := v.engine(topic, "r", readerOpts(messageid.Earliest(), false))
		if got := names(recvN(t, out, 2)); !slices.Equal(got, []string{"m-0", "m-1"}) {
			t.Fatalf("got %v", got)
		}
		if err := v.b.Unload(topic); err != nil {
			t.Fatal(err)
		}
		p2 := v.producer(topic)
		for _, c := range cs[1:] {
			if _, err := p2.SendRaw(ctxT(t), c.Meta, c.Payload); err != nil {
				t.Fatal(err)
			}
		}
		_, _ = p2.Send(ctxT(t), []byte("m-2"), "")
		got := recvN(t, out, 2)
		if !slices.Equal(names(got), []string{"X", "m-2"}) {
			t.Fatalf("after reconnect %v", names(got))
		}
		sameBytes(t, got[0].Payload, payload)
		expectNone(t, out, 50*time.Millisecond)
		_ = e
	})
}

func TestCumulativeRefusedOnShared(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		e, _ := v.engine(newTopic(t), "s", func(o *Options[*Message]) { o.SubType = proto.CommandSubscribe_Shared })
		if err := e.AckCumulative(ctxT(t), messageid.New(1, 1, -1, -1, 0)); err != ErrCumulativeNotAllowed {
			t.Fatalf("err = %v", err)
		}
	})
}
