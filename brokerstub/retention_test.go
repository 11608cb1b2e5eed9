package brokerstub

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

// subscribeReader attaches consumer id as a reader does: a non-durable
// Exclusive subscription starting at the earliest message, with permits.
func (c *ksClient) subscribeReader(topic, sub string, id uint64, permits uint32) {
	c.t.Helper()
	rid := c.nextRID()
	earliest := uint64(1<<64 - 1)
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &topic, Subscription: &sub, SubType: proto.CommandSubscribe_Exclusive.Enum(), ConsumerId: &id, RequestId: &rid,
		ConsumerName: gproto.String("reader"), Durable: gproto.Bool(false),
		StartMessageId: &proto.MessageIdData{LedgerId: &earliest, EntryId: &earliest}}})
	c.readUntil(proto.BaseCommand_SUCCESS)
	c.flow(id, permits)
}

// internalStatsOf returns the admin API's internal stats of a topic.
func internalStatsOf(t *testing.T, b *Broker, path string) (entries int, ledgers []int64) {
	t.Helper()
	code, body := adminDo(t, b, http.MethodGet, "/admin/v2/persistent/public/default/"+path+"/internalStats", "")
	require.Equal(t, http.StatusOK, code, body)
	var st struct {
		NumberOfEntries int `json:"numberOfEntries"`
		Ledgers         []struct {
			LedgerID int64 `json:"ledgerId"`
			Entries  int   `json:"entries"`
		} `json:"ledgers"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &st))
	for _, l := range st.Ledgers {
		if l.Entries > 0 {
			ledgers = append(ledgers, l.LedgerID)
		}
	}
	return st.NumberOfEntries, ledgers
}

// sendN stores n messages "m0".."m<n-1>" and returns their positions.
func (p *ksProducer) sendN(n int) []Position {
	var out []Position
	for i := range n {
		out = append(out, p.Send("k", "m"+string(rune('0'+i))))
	}
	return out
}

// TestRetentionDefaultDeletesConsumedLedgers: with Pulsar's default
// retention (0 and 0), full ledgers that every durable subscription has
// acknowledged are deleted at once; a new subscription from the earliest
// message, a reader and the internal stats see only what is left.
func TestRetentionDefaultDeletesConsumedLedgers(t *testing.T) {
	clk := NewFakeClock(ttlT0)
	b := RunT(t, Options{LedgerRolloverEntries: 2, Clock: clk})
	topic := "persistent://public/default/ret-default"
	c := dialKS(t, b)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 100)
	ps := c.producer(topic, 1).sendN(5) // 1:0 1:1 | 2:0 2:1 | 3:0
	require.Len(t, c.sync(1), 5)
	c.ack(1, ps[0], ps[1], ps[2])
	c.barrier(1)
	n, ledgers := internalStatsOf(t, b, "ret-default")
	assert.Equal(t, 3, n, "ledger 1 is consumed and gone; ledger 2 is not consumed yet")
	assert.Equal(t, []int64{ps[2].Ledger, ps[4].Ledger}, ledgers)

	clk.Advance(time.Second) // past the mark-delete rate limit (1/s)
	c.ack(1, ps[3])
	c.barrier(1)
	n, ledgers = internalStatsOf(t, b, "ret-default")
	assert.Equal(t, 1, n)
	assert.Equal(t, []int64{ps[4].Ledger}, ledgers, "the ledger being written stays")

	c.subscribeTyped(topic, "late", proto.CommandSubscribe_Shared, 2, 100)
	assert.Equal(t, []string{"m4"}, payloads(c.sync(2)), "a new subscription from the earliest message sees what is retained")
	c.subscribeReader(topic, "reader", 3, 100)
	assert.Equal(t, []string{"m4"}, payloads(c.sync(3)))
	code, body := adminDo(t, b, http.MethodGet, "/admin/v2/persistent/public/default/ret-default/stats", "")
	require.Equal(t, http.StatusOK, code)
	var st struct {
		StorageSize int64 `json:"storageSize"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &st))
	assert.Less(t, st.StorageSize, int64(100), "stats count only the retained entry")
}

// TestRetentionNamespacePolicyTime: a namespace retention of 60 minutes
// keeps consumed ledgers until they are older than that; the periodic
// check (every 120 s, Pulsar's default) deletes them then.
func TestRetentionNamespacePolicyTime(t *testing.T) {
	clk := NewFakeClock(ttlT0)
	b := RunT(t, Options{LedgerRolloverEntries: 2, Clock: clk})
	setPolicy(t, b, "/admin/v2/namespaces/public/default/retention", `{"retentionTimeInMinutes":60,"retentionSizeInMB":-1}`)
	code, body := adminDo(t, b, http.MethodGet, "/admin/v2/namespaces/public/default/retention", "")
	require.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"retentionTimeInMinutes":60,"retentionSizeInMB":-1}`, body)
	topic := "persistent://public/default/ret-time"
	c := dialKS(t, b)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 100)
	ps := c.producer(topic, 1).sendN(3) // 1:0 1:1 | 2:0
	require.Len(t, c.sync(1), 3)
	c.ack(1, ps...)
	c.barrier(1)
	n, _ := internalStatsOf(t, b, "ret-time")
	assert.Equal(t, 3, n, "consumed, but retained for an hour")

	clk.Advance(60 * time.Minute)
	c.barrier(1)
	n, _ = internalStatsOf(t, b, "ret-time")
	assert.Equal(t, 3, n, "exactly an hour old is not older than an hour")
	clk.Advance(2 * time.Minute)
	c.barrier(1)
	n, ledgers := internalStatsOf(t, b, "ret-time")
	assert.Equal(t, 1, n, "older than an hour: deleted by the periodic check")
	assert.Equal(t, []int64{ps[2].Ledger}, ledgers)

	for _, bad := range []string{`{"retentionTimeInMinutes":10,"retentionSizeInMB":0}`, `{"retentionTimeInMinutes":-2,"retentionSizeInMB":-1}`, `[1]`} {
		code, body := adminDo(t, b, http.MethodPost, "/admin/v2/namespaces/public/default/retention", bad)
		assert.Equal(t, http.StatusBadRequest, code, "%s: %s", bad, body)
	}
}

// TestRetentionTopicPolicySize: a topic's retention by size wins over the
// broker's default, and keeps consumed ledgers while the topic holds less
// than the limit.
func TestRetentionTopicPolicySize(t *testing.T) {
	b := RunT(t, Options{LedgerRolloverEntries: 1, Clock: NewFakeClock(ttlT0), Retention: Retention{Time: -1, Size: -1}})
	topic := "persistent://public/default/ret-size"
	c := dialKS(t, b)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 100)
	p := c.producer(topic, 1)
	big := string(make([]byte, 600<<10)) // 600 KiB an entry, one entry a ledger
	var ps []Position
	for range 4 {
		ps = append(ps, p.Send("k", big))
	}
	require.Len(t, c.sync(1), 4)
	c.ack(1, ps...)
	c.barrier(1)
	n, _ := internalStatsOf(t, b, "ret-size")
	assert.Equal(t, 4, n, "the broker's default here: infinite")

	setPolicy(t, b, "/admin/v2/persistent/public/default/ret-size/retention", `{"retentionTimeInMinutes":-1,"retentionSizeInMB":1}`)
	p.Send("k", "x") // fills ledger 5, which trims
	c.barrier(1)
	n, ledgers := internalStatsOf(t, b, "ret-size")
	// Oldest first, a ledger goes while the rest still holds >= 1 MiB:
	// 4 x 600 KiB + 1 B; deleting the second leaves 1.2 MiB, the third
	// would leave 600 KiB.
	assert.Equal(t, 3, n)
	assert.Equal(t, []int64{ps[2].Ledger, ps[3].Ledger, ps[3].Ledger + 1}, ledgers)
	code, _ := adminDo(t, b, http.MethodPost, "/admin/v2/persistent/public/default/ret-size/retention", `{"retentionTimeInMinutes":0,"retentionSizeInMB":5}`)
	assert.Equal(t, http.StatusBadRequest, code)
}

// TestRetentionWithoutSubscriptions: with no durable subscription every
// full ledger is consumed: it goes when it fills, and a subscription made
// later from the earliest message starts at the ledger being written.
func TestRetentionWithoutSubscriptions(t *testing.T) {
	b := RunT(t, Options{LedgerRolloverEntries: 2, Clock: NewFakeClock(ttlT0)})
	topic := "persistent://public/default/ret-nosub"
	c := dialKS(t, b)
	c.producer(topic, 1).sendN(5)
	n, _ := internalStatsOf(t, b, "ret-nosub")
	assert.Equal(t, 1, n)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 100)
	assert.Equal(t, []string{"m4"}, payloads(c.sync(1)))
}

// TestRetentionMovesReaders: a reader (non-durable) does not hold data
// back; when ledgers it has not read are deleted it is moved past them, as
// Pulsar's advanceCursorsIfNecessary.
func TestRetentionMovesReaders(t *testing.T) {
	b := RunT(t, Options{LedgerRolloverEntries: 2, Clock: NewFakeClock(ttlT0)})
	topic := "persistent://public/default/ret-reader"
	c := dialKS(t, b)
	c.subscribeReader(topic, "reader", 3, 0)
	c.producer(topic, 1).sendN(5)
	c.flow(3, 100)
	assert.Equal(t, []string{"m4"}, payloads(c.sync(3)), "the deleted ledgers are skipped")
}

// TestRetentionDataDir: deleted ledgers stay deleted after a restart over
// the data dir, and the subscription resumes where it was.
func TestRetentionDataDir(t *testing.T) {
	b := RunT(t, Options{LedgerRolloverEntries: 2, DataDir: t.TempDir(), Clock: NewFakeClock(ttlT0)})
	topic := "persistent://public/default/ret-dir"
	c := dialKS(t, b)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 100)
	ps := c.producer(topic, 1).sendN(5)
	require.Len(t, c.sync(1), 5)
	c.ack(1, ps[:4]...)
	c.barrier(1)
	require.NoError(t, b.Restart())
	n, ledgers := internalStatsOf(t, b, "ret-dir")
	assert.Equal(t, 1, n)
	assert.Equal(t, []int64{ps[4].Ledger}, ledgers)
	c = dialKS(t, b)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 100)
	assert.Equal(t, []string{"m4"}, payloads(c.sync(1)))
	c.subscribeTyped(topic, "new", proto.CommandSubscribe_Shared, 2, 100)
	assert.Equal(t, []string{"m4"}, payloads(c.sync(2)))
}

// TestRetentionAfterTTL: message TTL acknowledges expired backlog, and
// retention then deletes the ledgers it consumed.
func TestRetentionAfterTTL(t *testing.T) {
	clk := NewFakeClock(ttlT0)
	b := RunT(t, Options{LedgerRolloverEntries: 2, Clock: clk, MessageTTL: time.Minute})
	topic := "persistent://public/default/ret-ttl"
	c := dialKS(t, b)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 0)
	p := c.producer(topic, 1)
	for _, pl := range []string{"a", "b", "c"} {
		p.sendPublished(pl, ttlT0)
	}
	clk.Advance(5 * time.Minute)
	c.barrier(1)
	n, _ := internalStatsOf(t, b, "ret-ttl")
	assert.Equal(t, 1, n, "expired by TTL, then trimmed")
}

// TestRetentionNeverDeletesWhatACrashRestores: ledgers are deleted by the
// subscriptions' persisted mark-delete positions, as Pulsar's cursor
// container learns them, so an acknowledgment that the rate limit has not
// persisted yet deletes nothing, and after a Crash the messages it covered
// are still there to be redelivered. The periodic flush persists it, and
// the ledgers go then.
func TestRetentionNeverDeletesWhatACrashRestores(t *testing.T) {
	for _, crash := range []bool{true, false} {
		clk := NewFakeClock(ttlT0)
		b := RunT(t, Options{LedgerRolloverEntries: 2, Clock: clk})
		topic := "persistent://public/default/ret-crash"
		c := dialKS(t, b)
		c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 100)
		ps := c.producer(topic, 1).sendN(5)
		require.Len(t, c.sync(1), 5)
		c.ack(1, ps[0]) // persisted at once
		c.ack(1, ps[1], ps[2], ps[3])
		c.barrier(1)
		n, _ := internalStatsOf(t, b, "ret-crash")
		require.Equal(t, 5, n, "the second ack is held back by the rate limit: nothing consumed is persisted beyond ledger 1's first entry")
		if !crash {
			clk.Advance(75 * time.Second) // the periodic flush persists it
			c.barrier(1)
			n, _ = internalStatsOf(t, b, "ret-crash")
			assert.Equal(t, 1, n, "deleted once persisted")
			continue
		}
		require.NoError(t, b.Crash())
		c = dialKS(t, b)
		c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 100)
		assert.Equal(t, []string{"m1", "m2", "m3", "m4"}, payloads(c.sync(1)), "redelivered from the persisted position")
	}
}

// TestRetentionPolicyLimits: limits too large to count are no limit, never
// a wrapped-around small one.
func TestRetentionPolicyLimits(t *testing.T) {
	assert.Equal(t, Retention{Time: -1, Size: -1}, engine.RetentionPolicy{TimeInMinutes: 1 << 62, SizeInMB: 1 << 50}.Retention())
	assert.Equal(t, Retention{Time: time.Hour, Size: 5 << 20}, engine.RetentionPolicy{TimeInMinutes: 60, SizeInMB: 5}.Retention())
	assert.Equal(t, "", engine.CheckRetention([]byte(`{"retentionTimeInMinutes":"60","retentionSizeInMB":"-1"}`)), "numbers as strings, as Jackson takes them")
	b := RunT(t)
	setPolicy(t, b, "/admin/v2/namespaces/public/default/retention", `{"retentionTimeInMinutes":"60","retentionSizeInMB":"-1"}`)
	name, err := engine.ParseTopic("persistent://public/default/limits")
	require.NoError(t, err)
	assert.Equal(t, Retention{Time: time.Hour, Size: -1}, b.eng.Retention(name), "a policy stored with strings applies")
	assert.NotEqual(t, "", engine.CheckMessageTTL([]byte(`4294967296`)), "more than an int")
}
