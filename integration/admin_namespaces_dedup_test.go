package integration

import (
	"fmt"
	"testing"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
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

// TestAdminNamespaceDeduplicationAfterRestart: the namespace policy is kept
// with the broker's data, so a broker process started again over the same
// data dir still deduplicates: a producer with the same name resumes from
// its last sequence id and its resend is answered -1:-1.
func TestAdminNamespaceDeduplicationAfterRestart(t *testing.T) {
	dir := t.TempDir()
	first := newAdminEnv(t, brokerstub.Options{DataDir: dir})
	ns := fmt.Sprintf("public/dedup-%d", topicSeq.Add(1))
	require.NoError(t, first.admin.Namespaces().CreateNamespace(ns))
	require.NoError(t, first.admin.Namespaces().SetDeduplicationStatus(ns, true))
	topic := "persistent://" + ns + "/t"
	send := func(e *adminEnv, seqs ...int64) []int64 {
		client := officialClient(t, e.url)
		defer client.Close()
		prod, err := client.CreateProducer(official.ProducerOptions{Topic: topic, Name: "restarted", DisableBatching: true})
		require.NoError(t, err)
		defer prod.Close()
		var ledgers []int64
		for _, seq := range seqs {
			id, err := prod.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("m"), SequenceID: &seq})
			require.NoError(t, err)
			ledgers = append(ledgers, id.LedgerID())
		}
		require.Equal(t, seqs[len(seqs)-1], prod.LastSequenceID())
		return ledgers
	}
	send(first, 0, 1)
	require.NoError(t, first.stub.Close())

	second := newAdminEnv(t, brokerstub.Options{DataDir: dir})
	got := send(second, 1, 2)
	require.Equal(t, int64(-1), got[0], "the resend after the restart was stored again: the namespace policy was lost")
	require.NotEqual(t, int64(-1), got[1])
	st, err := second.admin.Topics().GetInternalStats(topicName(t, topic))
	require.NoError(t, err)
	require.Equal(t, int64(3), st.NumberOfEntries)
}
