package integration

import (
	"testing"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/require"
)

// TestAdminNamespaceDeduplication: the namespace policy set through the
// official admin client switches broker deduplication on for its topics
// (the broker's option is off), so a resend of a stored sequence id is
// answered -1:-1 and not stored.
func TestAdminNamespaceDeduplication(t *testing.T) {
	e := newAdminEnv(t)
	require.NoError(t, e.admin.Namespaces().SetDeduplicationStatus("public/default", true))
	t.Cleanup(func() { _ = e.admin.Namespaces().SetDeduplicationStatus("public/default", false) })
	client := officialClient(t, e.url)
	topic := newTopic(t)
	prod, err := client.CreateProducer(official.ProducerOptions{Topic: topic, Name: "ns-dedup", DisableBatching: true})
	require.NoError(t, err)
	defer prod.Close()
	for _, seq := range []int64{0, 1, 1} {
		id, err := prod.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("m"), SequenceID: &seq})
		require.NoError(t, err)
		if seq == 1 && id.LedgerID() == -1 {
			return // the resend was recognised
		}
	}
	t.Fatal("the resend of sequence id 1 was stored again: the namespace policy was not enforced")
}
