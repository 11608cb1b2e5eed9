package brokerstub

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

var ttlT0 = time.Unix(1_700_000_000, 0)

// sendPublished stores a message whose publish time is at, as a producer
// whose clock reads at would, and returns its position.
func (p *ksProducer) sendPublished(payload string, at time.Time) Position {
	c := p.c
	c.t.Helper()
	seq := p.seq
	p.seq++
	md := &proto.MessageMetadata{ProducerName: &p.name, SequenceId: &seq, PublishTime: gproto.Uint64(uint64(at.UnixMilli()))}
	c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
		ProducerId: &p.id, SequenceId: &seq, NumMessages: gproto.Int32(1)}}, md, []byte(payload))
	id := c.readUntil(proto.BaseCommand_SEND_RECEIPT).GetSendReceipt().GetMessageId()
	return Position{Ledger: int64(id.GetLedgerId()), Entry: int64(id.GetEntryId())}
}

// markDelete returns the subscription's mark-delete position.
func markDelete(t *testing.T, b *Broker, topic, sub string) Position {
	t.Helper()
	cur, _, err := b.Cursor(topic, sub)
	require.NoError(t, err)
	return cur.MarkDelete
}

// ttlSetup starts a broker on a fake clock with opts, subscribes consumer 1
// of subscription "s" without permits, and stores three messages published
// at ttlT0 and one 4.5 minutes later.
func ttlSetup(t *testing.T, opts Options, topic string) (*Broker, *FakeClock, *ksClient, []Position) {
	clk := NewFakeClock(ttlT0)
	opts.Clock = clk
	b := RunT(t, opts)
	c := dialKS(t, b)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 0)
	p := c.producer(topic, 1)
	var ps []Position
	for _, pl := range []string{"old-1", "old-2", "old-3"} {
		ps = append(ps, p.sendPublished(pl, ttlT0))
	}
	ps = append(ps, p.sendPublished("new", ttlT0.Add(4*time.Minute+30*time.Second)))
	return b, clk, c, ps
}

// TestTTLNamespacePolicyExpiresBacklog: with a namespace messageTTL set over
// the admin API, the periodic check (every 5 minutes, Pulsar's default)
// moves the mark-delete position past the backlog published more than the
// TTL ago; the consumer then gets only what is left.
func TestTTLNamespacePolicyExpiresBacklog(t *testing.T) {
	topic := "persistent://public/default/ttl-ns"
	b, clk, c, ps := ttlSetup(t, Options{}, topic)
	setPolicy(t, b, "/admin/v2/namespaces/public/default/messageTTL", "60")
	code, body := adminDo(t, b, http.MethodGet, "/admin/v2/namespaces/public/default/messageTTL", "")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "60", strings.TrimSpace(body))

	clk.Advance(5*time.Minute - time.Millisecond)
	c.barrier(1)
	assert.Equal(t, Position{Ledger: -1, Entry: -1}, markDelete(t, b, topic, "s"), "nothing expires before the check")
	clk.Advance(time.Millisecond)
	c.barrier(1)
	assert.Equal(t, ps[2], markDelete(t, b, topic, "s"), "published more than 60 s before the check: expired")

	c.flow(1, 10)
	assert.Equal(t, []string{"new"}, payloads(c.sync(1)))

	// The next check, 5 minutes on, expires the rest.
	clk.Advance(5 * time.Minute)
	c.barrier(1)
	assert.Equal(t, ps[3], markDelete(t, b, topic, "s"))
}

// TestTTLPrecedence: a topic's messageTTL wins over its namespace's, which
// wins over the broker's default (Options.MessageTTL); a TTL of 0 expires
// nothing.
func TestTTLPrecedence(t *testing.T) {
	topic := "persistent://public/default/ttl-prec"
	b, clk, c, ps := ttlSetup(t, Options{MessageTTL: time.Minute, MessageExpiryCheckInterval: time.Minute}, topic)
	setPolicy(t, b, "/admin/v2/namespaces/public/default/messageTTL", "0")
	setPolicy(t, b, "/admin/v2/persistent/public/default/ttl-prec/messageTTL", "3600")
	clk.Advance(time.Minute)
	c.barrier(1)
	assert.Equal(t, Position{Ledger: -1, Entry: -1}, markDelete(t, b, topic, "s"), "the topic's hour wins")

	setPolicy(t, b, "/admin/v2/persistent/public/default/ttl-prec/messageTTL", "")
	clk.Advance(time.Minute)
	c.barrier(1)
	assert.Equal(t, Position{Ledger: -1, Entry: -1}, markDelete(t, b, topic, "s"), "the namespace's 0: no TTL")

	setPolicy(t, b, "/admin/v2/namespaces/public/default/messageTTL", "")
	clk.Advance(time.Minute)
	c.barrier(1)
	assert.Equal(t, ps[2], markDelete(t, b, topic, "s"), "the broker's minute")

	code, _ := adminDo(t, b, http.MethodPost, "/admin/v2/namespaces/public/default/messageTTL", "-5")
	assert.Equal(t, http.StatusBadRequest, code)
	code, _ = adminDo(t, b, http.MethodPost, "/admin/v2/persistent/public/default/ttl-prec/messageTTL", "-5")
	assert.Equal(t, http.StatusBadRequest, code)
}

// TestTTLAdminExpireSharesThePath: the admin API's expire-messages endpoint
// expires by the same rule as the periodic check; 0 seconds expires
// nothing, as Pulsar's isEntryExpired.
func TestTTLAdminExpireSharesThePath(t *testing.T) {
	topic := "persistent://public/default/ttl-admin"
	b, clk, c, ps := ttlSetup(t, Options{}, topic)
	clk.Advance(5 * time.Minute)
	path := "/admin/v2/persistent/public/default/ttl-admin/subscription/s/expireMessages/"
	code, out := adminDo(t, b, http.MethodPost, path+"0", "")
	require.Equal(t, http.StatusNoContent, code, out)
	assert.Equal(t, Position{Ledger: -1, Entry: -1}, markDelete(t, b, topic, "s"))
	code, _ = adminDo(t, b, http.MethodPost, path+"60", "")
	require.Equal(t, http.StatusNoContent, code)
	assert.Equal(t, ps[2], markDelete(t, b, topic, "s"))
	code, _ = adminDo(t, b, http.MethodPost, "/admin/v2/persistent/public/default/ttl-admin/all_subscription/expireMessages/1", "")
	require.Equal(t, http.StatusNoContent, code)
	assert.Equal(t, ps[3], markDelete(t, b, topic, "s"))
	c.flow(1, 10)
	assert.Empty(t, c.sync(1))
}

// TestTTLConfigKeys: the broker.conf keys of TTL and retention reach the
// Options.
func TestTTLConfigKeys(t *testing.T) {
	cfg, err := ParseConfig(strings.NewReader("ttlDurationDefaultInSeconds=30\nmessageExpiryCheckIntervalInMinutes=2\n" +
		"defaultRetentionTimeInMinutes=-1\ndefaultRetentionSizeInMB=10\nretentionCheckIntervalInSeconds=7\n" +
		"delayedDeliveryMaxDelayInMillis=2500\n"))
	require.NoError(t, err)
	o := cfg.Options
	assert.Equal(t, 30*time.Second, o.MessageTTL)
	assert.Equal(t, 2*time.Minute, o.MessageExpiryCheckInterval)
	assert.Equal(t, Retention{Time: -1, Size: 10 << 20}, o.Retention)
	assert.Equal(t, 7*time.Second, o.RetentionCheckInterval)
	assert.Equal(t, 2500*time.Millisecond, o.DelayedDeliveryMaxDelay)
	assert.Empty(t, cfg.Ignored)
	cfg, err = ParseConfig(strings.NewReader(""))
	require.NoError(t, err)
	assert.Equal(t, Retention{}, cfg.Options.Retention, "Pulsar's default: 0 and 0, keep nothing consumed")
	for _, bad := range []string{"ttlDurationDefaultInSeconds=-1", "defaultRetentionSizeInMB=-2", "messageExpiryCheckIntervalInMinutes=0"} {
		_, err := ParseConfig(strings.NewReader(bad))
		assert.Error(t, err, bad)
	}
}
