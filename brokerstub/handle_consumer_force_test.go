package brokerstub

import (
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/stretchr/testify/assert"

	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

// subscribeForce sends SUBSCRIBE with force_topic_creation set to force
// and returns the error answered, nil on SUCCESS.
func (c *rawClient) subscribeForce(topic string, id uint64, force bool) *proto.CommandError {
	c.t.Helper()
	rid := id + 100
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &topic, Subscription: gproto.String("s"), SubType: proto.CommandSubscribe_Shared.Enum(),
		ConsumerId: &id, RequestId: &rid, ForceTopicCreation: &force}})
	for {
		f, err := c.next()
		if err != nil {
			c.t.Fatal(err)
		}
		switch f.Cmd.GetType() {
		case proto.BaseCommand_SUCCESS:
			return nil
		case proto.BaseCommand_ERROR:
			return f.Cmd.GetError()
		}
	}
}

// A SUBSCRIBE without force_topic_creation (what pattern consumers send)
// does not create a missing topic, as Pulsar's ServerCnx.
func TestSubscribeWithoutForceTopicCreation(t *testing.T) {
	b := RunT(t)
	assert.NoError(t, b.CreatePartitionedTopic("parted", 2))
	c := dialRaw(t, b)
	c.connect()

	e := c.subscribeForce("persistent://public/default/missing", 1, false)
	if assert.NotNil(t, e) {
		assert.Equal(t, proto.ServerError_TopicNotFound, e.GetError())
	}
	missing, err := engine.ParseTopic("missing")
	assert.NoError(t, err)
	assert.False(t, b.eng.TopicExists(missing))
	assert.Nil(t, c.subscribeForce("persistent://public/default/parted-partition-1", 2, false), "a partition of a partitioned topic exists")
	assert.Nil(t, c.subscribeForce("persistent://public/default/missing", 3, true), "force_topic_creation creates it")
	assert.Nil(t, c.subscribeForce("persistent://public/default/missing", 4, false), "now it exists")
}
