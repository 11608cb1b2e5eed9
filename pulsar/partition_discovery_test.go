package pulsar

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
)

// A producer and a consumer on a partitioned topic follow its growth, on
// their default one-minute discovery period (the official client's), by
// polling PARTITIONED_METADATA.
func TestProducerAndConsumerFollowPartitionGrowth(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		metadata := countCommands(v.b, new(atomic.Bool), "", brokerstub.CmdPartitionedMetadata)[brokerstub.CmdPartitionedMetadata]
		require.NoError(t, v.b.CreatePartitionedTopic("grow", 2))
		cons := v.subscribe(ConsumerOptions{Topic: "grow"})
		var seen atomic.Uint32 // the partition count the router was last given
		p, err := v.c.CreateProducer(ProducerOptions{Topic: "grow", DisableBatching: true,
			MessageRouter: func(m *ProducerMessage, md TopicMetadata) int {
				seen.Store(md.NumPartitions())
				i, _ := strconv.Atoi(m.Key)
				return i % int(md.NumPartitions())
			}})
		require.NoError(t, err)
		defer p.Close()
		send := func(keys ...int) {
			for _, k := range keys {
				_, err := p.Send(context.Background(), &ProducerMessage{Key: strconv.Itoa(k), Payload: []byte(strconv.Itoa(k))})
				require.NoError(t, err)
			}
		}
		before := metadata.Load()

		code, body := adminCall(t, v.b, http.MethodPost, "/admin/v2/persistent/public/default/grow/partitions", "4")
		require.Equal(t, http.StatusNoContent, code, body)
		time.Sleep(59 * time.Second)
		synctest.Wait()
		send(3)
		assert.Equal(t, uint32(2), seen.Load(), "not polled before the minute")
		m := csRecv(t, cons)
		assert.Equal(t, "persistent://public/default/grow-partition-1", m.Topic())
		require.NoError(t, cons.Ack(m))

		time.Sleep(2 * time.Second)
		synctest.Wait()
		send(0, 1, 2, 3)
		assert.Equal(t, uint32(4), seen.Load())
		var topics []string
		for _, m := range csRecvN(t, cons, 4) {
			topics = append(topics, m.Topic())
			require.NoError(t, cons.Ack(m))
		}
		slices.Sort(topics)
		assert.Equal(t, []string{
			"persistent://public/default/grow-partition-0", "persistent://public/default/grow-partition-1",
			"persistent://public/default/grow-partition-2", "persistent://public/default/grow-partition-3",
		}, topics)
		assert.Equal(t, before+2, metadata.Load(), "one poll each from the producer and the consumer")
		assert.Len(t, cons.(*consumerImpl).set.all(), 4)
	})
}

// The intervals are honoured when set, and a poll that fails leaves the
// producer and consumer working on the partitions they have (as the
// official TestPartitionUpdateFailed expects).
func TestPartitionDiscoveryIntervalsAndFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		var failing atomic.Bool
		v.b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
			return brokerstub.Action{Fail: ev.Type == brokerstub.CmdPartitionedMetadata && failing.Load(), FailWith: "ServiceNotReady"}
		})
		require.NoError(t, v.b.CreatePartitionedTopic("grow-fast", 1))
		cons := v.subscribe(ConsumerOptions{Topic: "grow-fast", AutoDiscoveryPeriod: 5 * time.Second})
		p, err := v.c.CreateProducer(ProducerOptions{Topic: "grow-fast", DisableBatching: true,
			PartitionsAutoDiscoveryInterval: 5 * time.Second,
			MessageRouter:                   func(_ *ProducerMessage, md TopicMetadata) int { return int(md.NumPartitions()) - 1 }})
		require.NoError(t, err)
		defer p.Close()

		failing.Store(true)
		code, body := adminCall(t, v.b, http.MethodPost, "/admin/v2/persistent/public/default/grow-fast/partitions", "2")
		require.Equal(t, http.StatusNoContent, code, body)
		time.Sleep(6 * time.Second)
		synctest.Wait()
		_, err = p.Send(context.Background(), &ProducerMessage{Payload: []byte("old")})
		require.NoError(t, err, "a failed poll does not break the producer")
		assert.Equal(t, "persistent://public/default/grow-fast-partition-0", csRecv(t, cons).Topic())

		failing.Store(false)
		time.Sleep(6 * time.Second)
		synctest.Wait()
		_, err = p.Send(context.Background(), &ProducerMessage{Payload: []byte("new")})
		require.NoError(t, err)
		assert.Equal(t, "persistent://public/default/grow-fast-partition-1", csRecv(t, cons).Topic())
	})
}
