package keyorder_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub/keyorder"
)

func id(e int64) keyorder.ID { return keyorder.ID{Ledger: 1, Entry: e, Batch: -1} }

func recv(c, k string, e int64) keyorder.Event {
	return keyorder.Event{Kind: keyorder.Received, Consumer: c, Key: k, ID: id(e)}
}
func ack(c string, e int64) keyorder.Event {
	return keyorder.Event{Kind: keyorder.Acked, Consumer: c, ID: id(e)}
}
func rel(c string, e int64) keyorder.Event {
	return keyorder.Event{Kind: keyorder.Released, Consumer: c, ID: id(e)}
}
func left(c string) keyorder.Event { return keyorder.Event{Kind: keyorder.Left, Consumer: c} }

func violation(t *testing.T, events []keyorder.Event) *keyorder.Violation {
	t.Helper()
	err := keyorder.Check(events)
	var v *keyorder.Violation
	require.True(t, errors.As(err, &v), "want a violation, got %v", err)
	return v
}

func TestValidLogsPass(t *testing.T) {
	for name, events := range map[string][]keyorder.Event{
		"two keys two consumers": {recv("c1", "a", 1), recv("c2", "b", 2), recv("c1", "a", 3), ack("c1", 1), ack("c1", 3), recv("c2", "a", 4)},
		"key moves after ack":    {recv("c1", "a", 1), ack("c1", 1), recv("c2", "a", 2)},
		// c1 leaves holding 6; c3 gets 6 again, then 7 and 8 (PIP-282).
		"redelivery after leave": {recv("c1", "a", 6), left("c1"), recv("c3", "a", 6), recv("c3", "a", 7), recv("c3", "a", 8)},
		// Duplicates to the same consumer, and an older message again.
		"duplicates": {recv("c1", "a", 1), recv("c1", "a", 2), rel("c1", 1), rel("c1", 2), recv("c1", "a", 1), recv("c1", "a", 2)},
		// A released message may go elsewhere once nothing of the key is held.
		"released then moved": {recv("c1", "a", 1), rel("c1", 1), recv("c2", "a", 1), recv("c2", "a", 2)},
		// Messages never seen by the departed consumer's application are
		// first deliveries for the next one.
		"unseen prefetch": {recv("c1", "a", 1), left("c1"), recv("c2", "a", 1), recv("c2", "a", 2), recv("c2", "a", 3)},
		// A name reused after Left starts afresh.
		"reconnect same name": {recv("c1", "a", 1), recv("c1", "a", 2), left("c1"), recv("c1", "a", 1), recv("c1", "a", 2), recv("c1", "a", 3)},
		// An owed message acknowledged meanwhile (an in-flight ack) is not
		// waited for.
		"owed then acked": {recv("c1", "a", 1), recv("c1", "a", 2), left("c1"), ack("c9", 1), recv("c2", "a", 2), recv("c2", "a", 3)},
		// Batch indexes order within an entry.
		"batch": {
			{Kind: keyorder.Received, Consumer: "c1", Key: "a", ID: keyorder.ID{Ledger: 1, Entry: 1, Batch: 0}},
			{Kind: keyorder.Received, Consumer: "c1", Key: "a", ID: keyorder.ID{Ledger: 1, Entry: 1, Batch: 1}},
			{Kind: keyorder.Received, Consumer: "c1", Key: "a", ID: keyorder.ID{Ledger: 2, Entry: 0, Batch: 0}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			assert.NoError(t, keyorder.Check(events))
		})
	}
}

// TestRuleA: 1:7 reaches a consumer first, then 1:6 arrives for the first
// time — PIP-282's first scenario as the old broker behaved.
func TestRuleA(t *testing.T) {
	v := violation(t, []keyorder.Event{
		recv("c1", "key-a", 5), ack("c1", 5),
		recv("c3", "key-a", 7), recv("c3", "key-a", 8), ack("c3", 7), ack("c3", 8),
		recv("c3", "key-a", 6),
	})
	assert.Equal(t, keyorder.FirstDeliveryOrder, v.Rule)
	assert.Equal(t, 6, v.Index)
	assert.Equal(t, id(6), v.Event.ID)
	assert.Contains(t, v.Detail, "1:8:-1")
	require.Len(t, v.History, 6)
	assert.Equal(t, 0, v.History[0].Index)
	msg := v.Error()
	assert.Contains(t, msg, "(a)")
	assert.Contains(t, msg, `earlier events of key "key-a"`)
	assert.Contains(t, msg, "#3 c3 received 1:8:-1")
}

// TestRuleB: c1 leaves holding 1:6; 1:7 reaches c3 before 1:6 does.
func TestRuleB(t *testing.T) {
	v := violation(t, []keyorder.Event{
		recv("c2", "b", 9),
		recv("c1", "a", 6),
		left("c1"),
		recv("c3", "a", 7),
	})
	assert.Equal(t, keyorder.RedeliveryFirst, v.Rule)
	assert.Equal(t, 3, v.Index)
	assert.Contains(t, v.Detail, "1:6:-1")
	assert.Contains(t, v.Error(), "c1 left")
}

// TestRuleC: key a is still pending at c1 when c2 gets 1:2.
func TestRuleC(t *testing.T) {
	v := violation(t, []keyorder.Event{
		recv("c1", "a", 1),
		recv("c1", "b", 3),
		recv("c2", "a", 2),
	})
	assert.Equal(t, keyorder.OneConsumerPerKey, v.Rule)
	assert.Equal(t, 2, v.Index)
	assert.Contains(t, v.Detail, "pending at c1")
	assert.Contains(t, v.Detail, "1:1:-1")
	assert.NotContains(t, v.Detail, "1:3:-1", "only the key's messages are listed")
}

func TestFirstViolationIsKept(t *testing.T) {
	var c keyorder.Checker
	require.NoError(t, c.Received("c1", "a", id(1)))
	first := c.Received("c2", "a", id(2))
	require.Error(t, first)
	require.Error(t, c.Received("c3", "a", id(0)))
	assert.Equal(t, first, c.Err())
	assert.Len(t, c.Events(), 3)
}

func TestCheckerIsSafeForConcurrentUse(t *testing.T) {
	var c keyorder.Checker
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			cons, key := fmt.Sprint("c", g), fmt.Sprint("k", g)
			for i := range 200 {
				mid := keyorder.ID{Ledger: int64(g), Entry: int64(i), Batch: -1}
				_ = c.Received(cons, key, mid)
				_ = c.Acked(cons, mid)
			}
			_ = c.Left(cons)
		})
	}
	wg.Wait()
	assert.NoError(t, c.Err())
	assert.Len(t, c.Events(), 4*401)
}

func TestStrings(t *testing.T) {
	assert.Equal(t, "c1 left", left("c1").String())
	assert.Equal(t, `c1 received 1:2:-1 key="a"`, recv("c1", "a", 2).String())
	for _, r := range []keyorder.Rule{keyorder.FirstDeliveryOrder, keyorder.RedeliveryFirst, keyorder.OneConsumerPerKey} {
		assert.True(t, strings.HasPrefix(r.String(), "("), r.String())
	}
	assert.Equal(t, -1, id(1).Compare(id(2)))
	assert.Equal(t, 1, keyorder.ID{Ledger: 2}.Compare(keyorder.ID{Ledger: 1, Entry: 9}))
	assert.Equal(t, 0, id(3).Compare(id(3)))
}

func ExampleChecker() {
	var c keyorder.Checker
	_ = c.Received("c1", "user-7", keyorder.ID{Ledger: 3, Entry: 1, Batch: -1})
	_ = c.Left("c1") // c1 closes without acknowledging 3:1
	err := c.Received("c2", "user-7", keyorder.ID{Ledger: 3, Entry: 2, Batch: -1})
	fmt.Println(err != nil)
	// Output: true
}
