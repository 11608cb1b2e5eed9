package brokerstub

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/pulsargo/sdk/internal/proto"
)

// TestDelayedNamespacePolicy: the namespace delayedDelivery policy switches
// delayed delivery off — messages held go at once, new ones are not held —
// and on again with its own tick time.
func TestDelayedNamespacePolicy(t *testing.T) {
	clk := NewFakeClock(delayT0)
	b := RunT(t, Options{Clock: clk})
	topic := "persistent://public/default/delay-nspol"
	const path = "/admin/v2/namespaces/public/default/delayedDelivery"
	c := dialKS(t, b)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 100)
	p := c.producer(topic, 1)
	p.sendAt("k", "held", delayT0.Add(time.Hour))
	assert.Empty(t, c.sync(1))

	setPolicy(t, b, path, `{"active":false,"tickTime":1000,"maxDeliveryDelayInMillis":0}`)
	assert.Equal(t, []string{"held"}, payloads(c.sync(1)), "switched off: what was held goes at once")
	p.sendAt("k", "not-held", delayT0.Add(time.Hour))
	assert.Equal(t, []string{"not-held"}, payloads(c.sync(1)))
	code, body := adminDo(t, b, http.MethodGet, path, "")
	assert.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"active":false,"tickTime":1000,"maxDeliveryDelayInMillis":0}`, body)

	// On again, with a 5 s tick: non-strict delivery may be a tick early.
	setPolicy(t, b, path, `{"active":true,"tickTime":5000}`)
	p.sendAt("k", "due-in-4s", delayT0.Add(4*time.Second))
	p.sendAt("k", "due-in-20s", delayT0.Add(20*time.Second))
	assert.Equal(t, []string{"due-in-4s"}, payloads(c.sync(1)), "within the policy's tick")
	clk.Advance(20*time.Second - time.Millisecond)
	assert.Empty(t, c.sync(1), "the timer wakes at the delivery time")
	clk.Advance(time.Millisecond)
	assert.Equal(t, []string{"due-in-20s"}, payloads(c.sync(1)))

	setPolicy(t, b, path, "")
	p.sendAt("k", "broker-default", delayT0.Add(time.Hour))
	assert.Empty(t, c.sync(1), "removed: the broker's setting (on) applies")
	code, _ = adminDo(t, b, http.MethodPost, path, `{"active":true,"tickTime":-1}`)
	assert.Equal(t, http.StatusBadRequest, code)
}

// TestDelayedTopicPolicy: a topic's delayedDelivery policy wins over its
// namespace's and the broker's.
func TestDelayedTopicPolicy(t *testing.T) {
	clk := NewFakeClock(delayT0)
	b := RunT(t, Options{Clock: clk, DisableDelayedDelivery: true})
	topic := "persistent://public/default/delay-topicpol"
	c := dialKS(t, b)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 100)
	p := c.producer(topic, 1)
	setPolicy(t, b, "/admin/v2/persistent/public/default/delay-topicpol/delayedDelivery", `{"active":true,"tickTime":1000}`)
	setPolicy(t, b, "/admin/v2/namespaces/public/default/delayedDelivery", `{"active":false}`)
	p.sendAt("k", "held", delayT0.Add(time.Minute))
	assert.Empty(t, c.sync(1), "the topic's policy holds it")
	setPolicy(t, b, "/admin/v2/persistent/public/default/delay-topicpol/delayedDelivery", "")
	assert.Equal(t, []string{"held"}, payloads(c.sync(1)), "back to the namespace's: off")
}
