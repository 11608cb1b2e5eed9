package pulsar

import (
	"errors"
	"regexp"
	"testing"
	"testing/synctest"

	"github.com/pulsargo/sdk/brokerstub"
)

func TestNewKeySharedPolicyStickyValidates(t *testing.T) {
	for _, bad := range [][]int{
		nil, {}, {1}, {0, 10, 20},
		{10, 10}, {20, 10}, {-1, 5}, {0, 65536},
		{0, 100, 100, 200},          // share 100
		{500, 600, 0, 10, 550, 700}, // overlap out of order
		{0, 65535, 30000, 30001},    // inside another
	} {
		if p, err := NewKeySharedPolicySticky(bad); err == nil || !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("NewKeySharedPolicySticky(%v) = %v, %v; want ErrInvalidOptions", bad, p, err)
		}
	}
	p, err := NewKeySharedPolicySticky([]int{0, 10000, 10001, 19999, 30000, 65535})
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != KeySharedPolicyModeSticky || len(p.HashRanges) != 6 || p.AllowOutOfOrderDelivery {
		t.Fatalf("policy %+v", p)
	}
}

// TestStickyPolicyAndReplicatedSubscriptionOnTheWire: the sticky ranges of
// NewKeySharedPolicySticky reach the broker's Key_Shared selector, and
// ReplicateSubscriptionState is sent in SUBSCRIBE (false too, as the
// official client).
func TestStickyPolicyAndReplicatedSubscriptionOnTheWire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		var l commandLog
		v.b.Intercept(l.record)
		topic := csTopic()
		policy, err := NewKeySharedPolicySticky([]int{100, 199, 1000, 1999})
		if err != nil {
			t.Fatal(err)
		}
		c := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "ks", Type: KeyShared, KeySharedPolicy: policy, ReplicateSubscriptionState: true})
		defer c.Close()
		st, err := v.b.KeyShared(topic, "ks")
		if err != nil {
			t.Fatal(err)
		}
		want := []brokerstub.HashRange{{Start: 100, End: 199}, {Start: 1000, End: 1999}}
		if st.Mode != "STICKY" || len(st.Consumers) != 1 || len(st.Consumers[0].Ranges) != 2 ||
			st.Consumers[0].Ranges[0] != want[0] || st.Consumers[0].Ranges[1] != want[1] {
			t.Fatalf("broker's state %+v, want STICKY with %v", st, want)
		}
		plain := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "plain"})
		defer plain.Close()
		subs := l.of(brokerstub.CmdSubscribe)
		if len(subs) != 2 {
			t.Fatalf("%d SUBSCRIBE commands", len(subs))
		}
		for i, want := range []string{"true", "false"} {
			re := regexp.MustCompile(`replicate_subscription_state:\s*` + want)
			if !re.MatchString(subs[i].Detail) {
				t.Errorf("SUBSCRIBE %d lacks replicate_subscription_state %s: %s", i, want, subs[i].Detail)
			}
		}
	})
}
