package brokerstub

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	gproto "google.golang.org/protobuf/proto"

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

// TestDelayedMaxDeliveryDelay: a message delayed further after its publish
// time than the policy's maxDeliveryDelayInMillis is refused with
// NotAllowedError (Pulsar's isExceedMaximumDeliveryDelay); one within it is
// stored. The broker's own limit (delayedDeliveryMaxDelayInMillis) applies
// without a policy.
func TestDelayedMaxDeliveryDelay(t *testing.T) {
	b := RunT(t, Options{Clock: NewFakeClock(delayT0), DelayedDeliveryMaxDelay: time.Hour})
	topic := "persistent://public/default/delay-max"
	c := dialKS(t, b)
	p := c.producer(topic, 1)
	send := func(delay time.Duration) proto.BaseCommand_Type {
		seq := p.seq
		p.seq++
		publish := delayT0.UnixMilli()
		md := &proto.MessageMetadata{ProducerName: &p.name, SequenceId: &seq, PublishTime: gproto.Uint64(uint64(publish)),
			DeliverAtTime: gproto.Int64(publish + delay.Milliseconds())}
		c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
			ProducerId: &p.id, SequenceId: &seq, NumMessages: gproto.Int32(1)}}, md, []byte("m"))
		for {
			f, err := c.next()
			if err != nil {
				t.Fatal(err)
			}
			switch f.Cmd.GetType() {
			case proto.BaseCommand_SEND_RECEIPT:
				return f.Cmd.GetType()
			case proto.BaseCommand_SEND_ERROR:
				assert.Equal(t, proto.ServerError_NotAllowedError, f.Cmd.GetSendError().GetError())
				assert.Contains(t, f.Cmd.GetSendError().GetMessage(), "Exceeds max allowed delivery delay")
				return f.Cmd.GetType()
			}
		}
	}
	assert.Equal(t, proto.BaseCommand_SEND_RECEIPT, send(time.Hour), "at the broker's limit")
	assert.Equal(t, proto.BaseCommand_SEND_ERROR, send(time.Hour+time.Millisecond), "past the broker's limit")
	setPolicy(t, b, "/admin/v2/persistent/public/default/delay-max/delayedDelivery", `{"active":true,"tickTime":1000,"maxDeliveryDelayInMillis":1000}`)
	assert.Equal(t, proto.BaseCommand_SEND_RECEIPT, send(time.Second))
	assert.Equal(t, proto.BaseCommand_SEND_ERROR, send(2*time.Second), "past the topic's limit")
	setPolicy(t, b, "/admin/v2/persistent/public/default/delay-max/delayedDelivery", `{"active":false}`)
	assert.Equal(t, proto.BaseCommand_SEND_RECEIPT, send(48*time.Hour), "no limit while delayed delivery is off")
}
