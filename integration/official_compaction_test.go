package integration

import (
	"fmt"
	"slices"
	"testing"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
)

// TestOfficialCompactionReader: the official client's ReadCompacted reader
// gets the latest value of each key after pulsaradmin's Compact (a key
// whose last message is empty is gone, and hasNext does not wait for it),
// then what was published after the compaction. Runs against a real Pulsar
// with PULSARGO_TEST_URL and PULSARGO_TEST_ADMIN_URL.
func TestOfficialCompactionReader(t *testing.T) {
	e := newAdminEnv(t)
	c := officialClient(t, e.url)
	topic := newTopic(t)
	p, err := c.CreateProducer(producerOpts(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	send := func(key, value string) {
		t.Helper()
		if _, err := p.Send(ctxT(t), &official.ProducerMessage{Key: key, Payload: []byte(value)}); err != nil {
			t.Fatal(err)
		}
	}
	send("a", "a1")
	send("b", "b1")
	send("a", "a2")
	send("c", "c1")
	send("b", "") // deletes b, and is the topic's last message

	tn := topicName(t, topic)
	if err := e.admin.Topics().Compact(tn); err != nil {
		t.Fatalf("compact: %v", err)
	}
	eventually(t, "compaction status", func() error {
		st, err := e.admin.Topics().CompactStatus(tn)
		if err != nil {
			return err
		}
		if st.Status != utils.SUCCESS {
			return fmt.Errorf("status %s %s", st.Status, st.LastError)
		}
		return nil
	})

	read := func() []string {
		t.Helper()
		r, err := c.CreateReader(official.ReaderOptions{Topic: topic, StartMessageID: official.EarliestMessageID(), ReadCompacted: true})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var got []string
		for r.HasNext() {
			m, err := r.Next(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, m.Key()+"="+string(m.Payload()))
		}
		return got
	}
	if got, want := read(), []string{"a=a2", "c=c1"}; !slices.Equal(got, want) {
		t.Errorf("compacted reader: %q, want %q", got, want)
	}
	send("a", "a3")
	if got, want := read(), []string{"a=a2", "c=c1", "a=a3"}; !slices.Equal(got, want) {
		t.Errorf("compacted reader after a new message: %q, want %q", got, want)
	}
	// ReadCompacted is refused on a Shared subscription, as Pulsar does.
	if cons, err := c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "shared",
		Type: official.Shared, ReadCompacted: true}); err == nil {
		cons.Close()
		t.Error("ReadCompacted on a Shared subscription was accepted")
	}
}
