package pulsar

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/topicname"
	"github.com/pulsargo/sdk/messageid"
)

func (v *csEnv) reader(opts ReaderOptions) Reader {
	v.t.Helper()
	r, err := v.c.CreateReader(opts)
	if err != nil {
		v.t.Fatalf("create reader: %v", err)
	}
	v.t.Cleanup(r.Close)
	return r
}

func readN(t *testing.T, r Reader, n int) []Message {
	t.Helper()
	out := make([]Message, n)
	for i := range out {
		m, err := r.Next(csCtx(t))
		if err != nil {
			t.Fatalf("next %d: %v", i, err)
		}
		out[i] = m
	}
	return out
}

// readerTopic holds m-0, a chunked message BIG with "y" between its first
// and second chunk, and m-2; BIG's id is returned as the producer saw it.
func readerTopic(t *testing.T, v *csEnv) (topic string, big []byte, bigID messageid.ChunkMessageID) {
	topic = csTopic()
	p := v.raw(topic, -1)
	_, _ = p.Send(csCtx(t), []byte("m-0"), "")
	big = csNoise(3000, 9)
	cs, _ := p.Chunks(big, 1000, compress.NONE)
	var ids []messageid.ID
	for i, c := range cs {
		id, err := p.SendRaw(csCtx(t), c.Meta, c.Payload)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		if i == 0 {
			_, _ = p.Send(csCtx(t), []byte("y"), "")
		}
	}
	_, _ = p.Send(csCtx(t), []byte("m-2"), "")
	return topic, big, messageid.NewChunk(ids[0], ids[len(ids)-1])
}

// TestReaderStartAtChunkID: a reader started at a chunk id starts at that
// whole message (the official Go client starts at its last chunk), or
// after it without StartMessageIDInclusive; a Consumer.Seek to it delivers
// it next either way.
func TestReaderStartAtChunkID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic, big, bigID := readerTopic(t, v)
		stored, _ := DeserializeMessageID(bigID.Serialize())
		for _, tc := range []struct {
			inclusive bool
			want      []string
		}{{true, []string{"BIG", "m-2"}}, {false, []string{"m-2"}}} {
			r := v.reader(ReaderOptions{Topic: topic, StartMessageID: stored, StartMessageIDInclusive: tc.inclusive})
			got := readN(t, r, len(tc.want))
			if !slices.Equal(csNames(got), tc.want) {
				t.Fatalf("inclusive=%v: %v, want %v", tc.inclusive, csNames(got), tc.want)
			}
			if tc.inclusive {
				csSame(t, got[0].Payload(), big)
			}
			if r.HasNext() {
				t.Fatalf("inclusive=%v: HasNext at the end", tc.inclusive)
			}
		}
		// The consumer's Seek delivers the whole message, inclusive or not.
		for _, tc := range []struct {
			inclusive bool
			want      []string
		}{{true, []string{"BIG", "m-2"}}, {false, []string{"BIG", "m-2"}}} {
			c := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: fmt.Sprintf("seek-%v", tc.inclusive), StartMessageIDInclusive: tc.inclusive})
			csRecvN(t, c, 4)
			if err := c.Seek(stored); err != nil {
				t.Fatal(err)
			}
			if got := csNames(csRecvN(t, c, len(tc.want))); !slices.Equal(got, tc.want) {
				t.Fatalf("consumer seek inclusive=%v: %v", tc.inclusive, got)
			}
		}
	})
}

func TestReaderSeekAndHasNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic, big, bigID := readerTopic(t, v)
		r := v.reader(ReaderOptions{Topic: topic, StartMessageID: EarliestMessageID()})
		if !r.HasNext() {
			t.Fatal("HasNext at the start")
		}
		all := readN(t, r, 4)
		if got := csNames(all); !slices.Equal(got, []string{"m-0", "y", "BIG", "m-2"}) {
			t.Fatalf("got %v", got)
		}
		if r.HasNext() {
			t.Fatal("HasNext at the end")
		}
		last, err := r.GetLastMessageID()
		if err != nil || messageid.Compare(last, all[3].ID()) != 0 {
			t.Fatalf("last id %v %v, want %v", last, err, all[3].ID())
		}
		// Seek to the chunk id: that whole message next (not y, which lies
		// between its chunks), though the reader is exclusive.
		if err := r.Seek(bigID); err != nil {
			t.Fatal(err)
		}
		if got := readN(t, r, 2); !slices.Equal(csNames(got), []string{"BIG", "m-2"}) {
			t.Fatalf("after seek %v", csNames(got))
		} else {
			csSame(t, got[0].Payload(), big)
		}
		// Seek by time to the start.
		if err := r.SeekByTime(time.UnixMilli(0)); err != nil {
			t.Fatal(err)
		}
		got := readN(t, r, 4)
		if names := csNames(got); names[0] != "m-0" || names[2] != "BIG" {
			t.Fatalf("after seek by time %v", names)
		}
		csSame(t, got[2].Payload(), big)
	})
}

func TestReaderLatest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		p := v.raw(topic, -1)
		_, _ = p.Send(csCtx(t), []byte("old-0"), "")
		_, _ = p.Send(csCtx(t), []byte("old-1"), "")
		incl := v.reader(ReaderOptions{Topic: topic, StartMessageID: LatestMessageID(), StartMessageIDInclusive: true})
		if got := csNames(readN(t, incl, 1)); got[0] != "old-1" {
			t.Fatalf("inclusive latest: %v", got)
		}
		r := v.reader(ReaderOptions{Topic: topic, StartMessageID: LatestMessageID()})
		if r.HasNext() {
			t.Fatal("HasNext at latest")
		}
		_, _ = p.Send(csCtx(t), []byte("new"), "")
		if got := csNames(readN(t, r, 1)); got[0] != "new" {
			t.Fatalf("got %v", got)
		}
	})
}

func TestReaderPartitionedTopic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		if err := v.b.CreatePartitionedTopic(topic, 2); err != nil {
			t.Fatal(err)
		}
		var want []string
		for i := range 2 {
			p := v.raw(topicname.PartitionName(topic, i), int32(i))
			s := fmt.Sprintf("p-%d", i)
			_, _ = p.Send(csCtx(t), []byte(s), "")
			want = append(want, s)
		}
		r := v.reader(ReaderOptions{Topic: topic, StartMessageID: EarliestMessageID()})
		got := csNames(readN(t, r, 2))
		sort.Strings(got)
		if !slices.Equal(got, want) {
			t.Fatalf("got %v", got)
		}
		if _, err := v.c.CreateReader(ReaderOptions{Topic: topic, StartMessageID: NewMessageID(1, 1, -1, 0)}); !errors.Is(err, ErrInvalidOptions) {
			t.Fatalf("specific start on 2 partitions: %v", err)
		}
		// No single last message: refused, as the official reader.
		var pe *Error
		if id, err := r.GetLastMessageID(); !errors.As(err, &pe) || pe.Result() != OperationNotSupported {
			t.Fatalf("GetLastMessageID on 2 partitions: %v, %v; want OperationNotSupported", id, err)
		}
	})
}
