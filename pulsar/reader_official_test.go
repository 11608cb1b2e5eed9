package pulsar

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

// readNone fails if the reader yields a message within d.
func readNone(t *testing.T, r Reader, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if m, err := r.Next(ctx); err == nil {
		t.Fatalf("unexpected message %v %q", m.ID(), m.Payload())
	}
}

// TestReaderWithSeekByTime: after SeekByTime(time.Now()) HasNext is false
// (and Next has nothing) until messages are published after it; then
// HasNext is true for each of them.
func TestReaderWithSeekByTime(t *testing.T) {
	for name, start := range map[string]MessageID{"earliest": EarliestMessageID(), "latest": LatestMessageID()} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := bubbleEnv(t)
				topic := csTopic()
				p, err := v.c.CreateProducer(ProducerOptions{Topic: topic, DisableBatching: true})
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				send := func(prefix string) {
					for i := range 10 {
						if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: fmt.Appendf(nil, "%s-%d", prefix, i)}); err != nil {
							t.Fatal(err)
						}
					}
				}
				send("hello")
				r := v.reader(ReaderOptions{Topic: topic, StartMessageID: start})
				time.Sleep(time.Millisecond) // publish times are milliseconds: "now" lies after the first ten (bubble time)
				if err := r.SeekByTime(time.Now()); err != nil {
					t.Fatal(err)
				}
				if r.HasNext() {
					t.Fatal("HasNext after seeking to now")
				}
				readNone(t, r, time.Second)
				send("hello2")
				for i := range 10 {
					if !r.HasNext() {
						t.Fatalf("HasNext false before hello2-%d", i)
					}
					if m := readN(t, r, 1)[0]; string(m.Payload()) != fmt.Sprintf("hello2-%d", i) {
						t.Fatalf("got %q, want hello2-%d", m.Payload(), i)
					}
				}
				if r.HasNext() {
					t.Fatal("HasNext at the end")
				}
				readNone(t, r, time.Second)
			})
		})
	}
}

// TestReaderOnSpecificMessageWithCustomMessageID: a reader starts at a
// MessageID implemented by the caller, read through its Serialize method
// only, exclusive or inclusive; Reader.Seek accepts one too.
func TestReaderOnSpecificMessageWithCustomMessageID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := bubbleEnv(t)
		topic := csTopic()
		p, err := v.c.CreateProducer(ProducerOptions{Topic: topic, DisableBatching: true})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		var ids [10]MessageID
		for i := range ids {
			if ids[i], err = p.Send(csCtx(t), &ProducerMessage{Payload: fmt.Appendf(nil, "hello-%d", i)}); err != nil {
				t.Fatal(err)
			}
		}
		start := &foreignID{data: ids[4].Serialize()}
		expect := func(r Reader, from int) {
			t.Helper()
			for i := from; i < 10; i++ {
				if m := readN(t, r, 1)[0]; string(m.Payload()) != fmt.Sprintf("hello-%d", i) {
					t.Fatalf("got %q, want hello-%d", m.Payload(), i)
				}
			}
		}
		expect(v.reader(ReaderOptions{Topic: topic, StartMessageID: start}), 5)
		incl := v.reader(ReaderOptions{Topic: topic, StartMessageID: start, StartMessageIDInclusive: true})
		expect(incl, 4)
		if err := incl.Seek(&foreignID{data: ids[7].Serialize()}); err != nil {
			t.Fatal(err)
		}
		expect(incl, 7)
	})
}
