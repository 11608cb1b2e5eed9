package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"

	"github.com/pulsargo/sdk/brokerstub"
)

// TestAdminBacklogQuotaEnforced sets a namespace backlog quota over HTTP
// and checks that the broker enforces it over the binary protocol:
// producers are refused while the backlog is over the limit, and accepted
// again once it is cleared.
func TestAdminBacklogQuotaEnforced(t *testing.T) {
	for _, policy := range []utils.RetentionPolicy{utils.ProducerException, utils.ProducerRequestHold} {
		t.Run(string(policy), func(t *testing.T) {
			// The periodic check runs on a fake clock, so that it cannot
			// close the producer halfway through the sends below.
			clk := brokerstub.NewFakeClock(time.Now())
			e := newAdminEnv(t, brokerstub.Options{Clock: clk, BacklogQuota: brokerstub.BacklogQuota{CheckInterval: 50 * time.Millisecond}})
			ns := fmt.Sprintf("public/quota-%d", topicSeq.Add(1))
			if err := e.admin.Namespaces().CreateNamespace(ns); err != nil {
				t.Fatal(err)
			}
			if err := e.admin.Namespaces().SetBacklogQuota(ns, utils.NewBacklogQuota(10*1024, -1, policy), utils.DestinationStorage); err != nil {
				t.Fatal(err)
			}
			qm, err := e.admin.Namespaces().GetBacklogQuotaMap(ns)
			if err != nil || qm[utils.DestinationStorage].LimitSize != 10*1024 || qm[utils.DestinationStorage].Policy != policy {
				t.Fatalf("backlog quota map = %+v, %v", qm, err)
			}
			topic := "persistent://" + ns + "/t"
			tn := topicName(t, topic)
			if err := e.admin.Subscriptions().Create(tn, "slow", utils.Earliest); err != nil {
				// The topic does not exist yet: create it first.
				if err := e.admin.Topics().Create(tn, 0); err != nil {
					t.Fatal(err)
				}
				if err := e.admin.Subscriptions().Create(tn, "slow", utils.Earliest); err != nil {
					t.Fatal(err)
				}
			}
			c := officialClient(t, e.url)
			p, err := c.CreateProducer(producerOpts(topic))
			if err != nil {
				t.Fatal(err)
			}
			for range 12 {
				if _, err := p.Send(ctxT(t), &official.ProducerMessage{Payload: make([]byte, 1024)}); err != nil {
					t.Fatal(err)
				}
			}
			clk.Advance(50 * time.Millisecond) // the periodic check: over the quota
			want := "ProducerBlockedQuotaExceededException"
			if policy == utils.ProducerRequestHold {
				want = "ProducerBlockedQuotaExceededError"
			}
			noRetry := uint(0)
			eventually(t, "producer refused over the quota", func() error {
				p2, err := c.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true, MaxReconnectToBroker: &noRetry})
				if err == nil {
					p2.Close()
					return errorf("a producer attached over the quota")
				}
				if !strings.Contains(err.Error(), want) {
					return errorf("got %v, want %s", err, want)
				}
				return nil
			})
			if err := e.admin.Subscriptions().ClearBacklog(tn, "slow"); err != nil {
				t.Fatal(err)
			}
			p3, err := c.CreateProducer(producerOpts(topic))
			if err != nil {
				t.Fatalf("producer after clearing the backlog: %v", err)
			}
			p3.Close()
		})
	}
}
