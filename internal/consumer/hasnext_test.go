package consumer

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
)

// TestHasNextAfterSeekByTime: after a seek by time past every message,
// HasNext is false — from the mark-delete position the broker sends with
// the last id (durable subscription: the stub sends it), or by receiving
// the entries through the last id (reader: it does not) — and true once a
// message is published after the time.
func TestHasNextAfterSeekByTime(t *testing.T) {
	for _, reader := range []bool{false, true} {
		t.Run(fmt.Sprintf("reader=%v", reader), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := newEnv(t, brokerstub.Options{NoListener: true})
				topic := newTopic(t)
				p := v.producer(topic)
				for i := range 3 {
					if _, err := p.Send(ctxT(t), fmt.Appendf(nil, "m-%d", i), ""); err != nil {
						t.Fatal(err)
					}
				}
				var fn func(*Options[*Message])
				if reader {
					fn = readerOpts(nil, false)
				}
				e, out := v.engine(topic, "s", fn)
				time.Sleep(time.Millisecond) // publish times are milliseconds: now lies after them (bubble time)
				if err := e.SeekByTime(ctxT(t), time.Now()); err != nil {
					t.Fatal(err)
				}
				// Without the mark-delete position, a durable cursor past
				// the last entry delivers nothing: only the deadline would
				// end the wait.
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				if has, err := e.HasNext(ctx); has || err != nil {
					t.Fatalf("HasNext after seeking past the end: %v, %v", has, err)
				}
				if _, err := p.Send(ctxT(t), []byte("new"), ""); err != nil {
					t.Fatal(err)
				}
				if has, err := e.HasNext(ctxT(t)); !has || err != nil {
					t.Fatalf("HasNext after a new message: %v, %v", has, err)
				}
				if m := recv(t, out); string(m.Payload) != "new" {
					t.Fatalf("got %q", m.Payload)
				}
			})
		})
	}
}
