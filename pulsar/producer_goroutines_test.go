package pulsar

import (
	"bytes"
	"fmt"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
)

// TestProducerPartitionsHoldNoGoroutines: a producer of a topic with many
// partitions holds goroutines per connection, not per partition, once its
// sends have completed (issue #35: 2 per partition before, 2,006 for 1,000
// partitions). Sends and their callbacks still complete in order on every
// partition, and a partition's producer that loses its connection
// re-attaches.
func TestProducerPartitionsHoldNoGoroutines(t *testing.T) {
	const partitions = 200
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		if err := v.b.CreatePartitionedTopic(topic, partitions); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		before := clientGoroutines(t)
		p := testProducer(t, v.c, ProducerOptions{Topic: topic, DisableBatching: true})
		for i := range partitions {
			if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte(fmt.Sprint(i)), Key: fmt.Sprint("k", i)}); err != nil {
				t.Fatalf("send %d: %v", i, err)
			}
		}
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if grown := clientGoroutines(t) - before; grown > partitions/10 {
			t.Fatalf("a producer of %d partitions holds %d goroutines at rest, want at most %d (per connection, not per partition)", partitions, grown, partitions/10)
		}
		// A lost connection: every partition's producer re-attaches, then
		// lets its goroutine go again.
		if err := v.b.Unload(topic + "-partition-0"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("after unload"), Key: "k0"}); err != nil {
			t.Fatalf("send after unload: %v", err)
		}
		synctest.Wait()
		if grown := clientGoroutines(t) - before; grown > partitions/10 {
			t.Fatalf("after a reconnect the producer holds %d goroutines at rest, want at most %d", grown, partitions/10)
		}
	})
}

// clientGoroutines counts the goroutines of this process but the in-process
// broker's (a topic goroutine per partition is the stub's, not the client's):
// those of brokerstub and of its packages.
func clientGoroutines(t *testing.T) int {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		t.Fatal(err)
	}
	n := 0
	_, records, _ := strings.Cut(buf.String(), "\n") // after "goroutine profile: total N"
	for _, rec := range strings.Split(records, "\n\n") {
		count, _, ok := strings.Cut(rec, " @ ")
		c, err := strconv.Atoi(count)
		if !ok || err != nil || strings.Contains(rec, "sdk/brokerstub.") || strings.Contains(rec, "sdk/brokerstub/") {
			continue
		}
		n += c
	}
	return n
}
