// Quickstart sends one large message through Pulsar with chunking, on the
// client's default options, showing its chunks as the broker acknowledges
// them ("chunks acknowledged: N of M" with the throughput); it receives and
// verifies the message, then seeks back to it with the chunk message id
// the producer returned and reads it again.
//
//	go run ./examples/quickstart                      # 64 MiB on an in-process brokerstub
//	go run ./examples/quickstart -size 1GiB           # larger than the 64 MiB memory limit: chunks are counted as they are in flight
//	go run ./examples/quickstart -url pulsar://host:6650
//	go run ./examples/quickstart -stream -size 1GiB   # sent with SendReader, received with ReceiveStream: prints the peak RSS
//
// Without -url it starts brokerstub in the process, so it needs no Pulsar
// cluster, JVM or Docker. The payload is held in memory by the producer
// and, once reassembled, by the consumer (and by the in-process stub), so
// -size 1GiB needs a few GiB of RAM. With -stream neither side holds it:
// the payload is generated as it is sent and hashed as it is received,
// and the in-process stub keeps its entries in a temporary data
// directory, so the process stays within a few hundred MiB.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/messageid"
	"github.com/pulsargo/sdk/pulsar"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	url := fs.String("url", "", "Pulsar service URL; default: an in-process brokerstub")
	sizeFlag := fs.String("size", "64MiB", "payload size (bytes, or with KiB/MiB/GiB)")
	topic := fs.String("topic", fmt.Sprintf("quickstart-%d", time.Now().UnixNano()), "topic")
	stream := fs.Bool("stream", false, "stream the payload: SendReader and ReceiveStream, printing the peak RSS")
	if err := fs.Parse(args); err != nil {
		return err
	}
	size, err := parseSize(*sizeFlag)
	if err != nil {
		return err
	}
	// Five minutes, and a minute more per 640 MiB (10 MiB/s).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute+time.Duration(size/(10<<20))*time.Second)
	defer cancel()

	if *url == "" {
		var o brokerstub.Options
		if *stream {
			dir, err := os.MkdirTemp("", "quickstart-stub-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			o.DataDir = dir
		}
		b, err := brokerstub.Start(o)
		if err != nil {
			return err
		}
		defer b.Close()
		*url = b.URL()
		fmt.Fprintf(out, "started an in-process brokerstub at %s\n", *url)
	}
	client, err := pulsar.NewClient(pulsar.ClientOptions{URL: *url})
	if err != nil {
		return err
	}
	defer client.Close()
	if *stream {
		return runStream(ctx, out, client, *topic, size)
	}

	payload := make([]byte, size)
	if _, err := rand.Read(payload); err != nil {
		return err
	}
	sum := sha256.Sum256(payload)
	fmt.Fprintf(out, "payload: %s, sha256 %x\n", human(size), sum[:8])

	producer, err := client.CreateProducer(pulsar.ProducerOptions{Topic: *topic, EnableChunking: true})
	if err != nil {
		return err
	}
	defer producer.Close()
	// The consumer reassembles a chunked message within a byte budget
	// (MaxPendingChunkedBytes, 256 MiB by default): a larger message needs
	// a larger budget.
	consumer, err := client.Subscribe(pulsar.ConsumerOptions{Topic: *topic, SubscriptionName: "quickstart",
		SubscriptionInitialPosition: pulsar.SubscriptionPositionEarliest, MaxPendingChunkedBytes: max(int64(size), 256<<20)})
	if err != nil {
		return err
	}
	defer consumer.Close()

	// Send (on its own goroutine: Send returns once the broker has every
	// chunk), showing chunks as the broker acknowledges them.
	start := time.Now()
	type result struct {
		id  pulsar.MessageID
		err error
	}
	done := make(chan result, 1)
	go func() {
		id, err := producer.Send(ctx, &pulsar.ProducerMessage{Payload: payload})
		done <- result{id, err}
	}()
	var sent result
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		select {
		case sent = <-done:
			break wait
		case <-tick.C:
			if st := producer.Stats(); st.PendingChunks > 0 {
				acked, total := st.ChunksSent, st.ChunksSent+uint64(st.PendingChunks)
				elapsed := time.Since(start).Seconds()
				fmt.Fprintf(out, "\r  chunks acknowledged: %d of %d (%s/s)   ", acked, total,
					human(int(float64(size)*float64(acked)/float64(total)/elapsed)))
			}
		}
	}
	if sent.err != nil {
		return fmt.Errorf("send: %w", sent.err)
	}
	sendTime := time.Since(start)
	chunkID, ok := sent.id.(pulsar.ChunkMessageID)
	if !ok {
		return errors.New("the message was not chunked; try a larger -size")
	}
	chunks := producer.Stats().ChunksSent
	fmt.Fprintf(out, "\r%-60s\rsent in %v (%s/s): %d of %d chunks acknowledged, id %s\n", "", sendTime.Round(time.Millisecond),
		human(int(float64(size)/sendTime.Seconds())), chunks, chunks, chunkID)

	// Receive and verify.
	start = time.Now()
	msg, err := receiveVerified(ctx, consumer, sum)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "received and verified in %v; id %s\n", time.Since(start).Round(time.Millisecond), msg.ID())
	if err := consumer.Ack(msg); err != nil {
		return err
	}

	// The id survives serialization with its first chunk, and a Seek to a
	// chunk id delivers that whole message next.
	restored, err := pulsar.DeserializeMessageID(chunkID.Serialize())
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "seeking back to the first chunk %s\n", messageid.FirstChunk(restored))
	start = time.Now()
	if err := consumer.Seek(restored); err != nil {
		return fmt.Errorf("seek: %w", err)
	}
	again, err := receiveVerified(ctx, consumer, sum)
	if err != nil {
		return fmt.Errorf("after seek: %w", err)
	}
	fmt.Fprintf(out, "read it again after the seek in %v\n", time.Since(start).Round(time.Millisecond))
	return consumer.Ack(again)
}

// receiveVerified receives one message and checks its SHA-256.
func receiveVerified(ctx context.Context, c pulsar.Consumer, want [32]byte) (pulsar.Message, error) {
	msg, err := c.Receive(ctx)
	if err != nil {
		return nil, fmt.Errorf("receive: %w", err)
	}
	if got := sha256.Sum256(msg.Payload()); !bytes.Equal(got[:], want[:]) {
		return nil, fmt.Errorf("payload mismatch: sha256 %x, want %x", got[:8], want[:8])
	}
	return msg, nil
}

func parseSize(s string) (int, error) {
	mult := 1
	for suffix, m := range map[string]int{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if v, ok := strings.CutSuffix(s, suffix); ok {
			s, mult = v, m
			break
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad -size %q", s)
	}
	return n * mult, nil
}

func human(n int) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
