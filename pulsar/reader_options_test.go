package pulsar

import (
	"context"
	"regexp"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/compress"
)

// TestReaderPropertiesAndRolePrefixOnTheWire: a reader's Properties are
// its SUBSCRIBE metadata, and its generated subscription name starts with
// SubscriptionRolePrefix ("reader" by default).
func TestReaderPropertiesAndRolePrefixOnTheWire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		var l commandLog
		v.b.Intercept(l.record)
		topic := csTopic()
		r, err := v.c.CreateReader(ReaderOptions{Topic: topic, StartMessageID: EarliestMessageID(),
			SubscriptionRolePrefix: "audit", Properties: map[string]string{"team": "billing"},
			MessageChannel: make(chan ReaderMessage)})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		plain, err := v.c.CreateReader(ReaderOptions{Topic: topic, StartMessageID: EarliestMessageID()})
		if err != nil {
			t.Fatal(err)
		}
		defer plain.Close()
		subs := l.of(brokerstub.CmdSubscribe)
		if len(subs) != 2 {
			t.Fatalf("%d SUBSCRIBE commands", len(subs))
		}
		for _, c := range []struct {
			detail string
			want   []string
		}{
			{subs[0].Detail, []string{`subscription:\s*"audit-[0-9a-f]{10}"`, `key:\s*"team"\s+value:\s*"billing"`}},
			{subs[1].Detail, []string{`subscription:\s*"reader-[0-9a-f]{10}"`}},
		} {
			for _, w := range c.want {
				if !regexp.MustCompile(w).MatchString(c.detail) {
					t.Errorf("SUBSCRIBE lacks %s: %s", w, c.detail)
				}
			}
		}
	})
}

// TestReaderAutoAckIncompleteChunk: a chunked message whose chunks stop
// arriving expires; by default the reader reads it again (its chunks are
// redelivered), with AutoAckIncompleteChunk it skips it.
func TestReaderAutoAckIncompleteChunk(t *testing.T) {
	for _, autoAck := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			v := newCSEnv(t)
			topic := csTopic()
			p := v.raw(topic, -1)
			big := csNoise(2000, 3)
			cs, _ := p.Chunks(big, 1000, compress.NONE)
			_, _ = p.SendRaw(csCtx(t), cs[0].Meta, cs[0].Payload)
			r, err := v.c.CreateReader(ReaderOptions{Topic: topic, StartMessageID: EarliestMessageID(),
				ExpireTimeOfIncompleteChunk: 50 * time.Millisecond, AutoAckIncompleteChunk: autoAck})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			time.Sleep(150 * time.Millisecond) // chunk 0 expires after 50 ms (bubble time)
			_, _ = p.SendRaw(csCtx(t), cs[1].Meta, cs[1].Payload)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			m, err := r.Next(ctx)
			switch {
			case autoAck && err == nil:
				t.Fatalf("AutoAckIncompleteChunk: the expired message was read (%d bytes)", len(m.Payload()))
			case !autoAck && err != nil:
				t.Fatalf("default policy: the expired message was not read again: %v", err)
			case !autoAck:
				csSame(t, m.Payload(), big)
			}
		})
	}
}
