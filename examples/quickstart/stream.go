package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pulsargo/sdk/messageid"
	"github.com/pulsargo/sdk/pulsar"
)

// runStream is the -stream mode: the payload is generated as it is sent
// (Producer.SendReader) and hashed as it is received
// (Consumer.ReceiveStream), so neither side holds it: the process's peak
// RSS stays far below the payload's size.
func runStream(ctx context.Context, out io.Writer, client pulsar.Client, topic string, size int) error {
	producer, err := client.CreateProducer(pulsar.ProducerOptions{Topic: topic, EnableChunking: true})
	if err != nil {
		return err
	}
	defer producer.Close()
	// Default options: a chunked message over MaxPendingChunkedBytes
	// (256 MiB) is streamed by ReceiveStream; a smaller one is read from
	// memory, as Receive would have it.
	consumer, err := client.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "quickstart",
		SubscriptionInitialPosition: pulsar.SubscriptionPositionEarliest})
	if err != nil {
		return err
	}
	defer consumer.Close()

	start := time.Now()
	sentHash := sha256.New()
	type result struct {
		id  pulsar.MessageID
		err error
	}
	done := make(chan result, 1)
	recvCtx, stopRecv := context.WithCancel(ctx)
	defer stopRecv()
	go func() {
		src := io.TeeReader(&generator{left: size, rng: rand.New(rand.NewChaCha8([32]byte{1}))}, sentHash)
		id, err := producer.SendReader(ctx, &pulsar.ProducerMessage{}, src, int64(size))
		if err != nil {
			stopRecv() // nothing will come
		}
		done <- result{id, err}
	}()
	fmt.Fprintf(out, "streaming %s: sending with SendReader while receiving with ReceiveStream\n", human(size))
	stream, err := consumer.ReceiveStream(recvCtx)
	if err != nil {
		select {
		case sent := <-done:
			if sent.err != nil {
				return fmt.Errorf("send: %w", sent.err)
			}
		default:
		}
		return fmt.Errorf("receive: %w", err)
	}
	gotSum, n, err := hashStream(stream, out, start, size)
	if err != nil {
		return fmt.Errorf("reading the stream: %w", err)
	}
	sent := <-done
	if sent.err != nil {
		return fmt.Errorf("send: %w", sent.err)
	}
	elapsed := time.Since(start)
	if n != int64(size) || !bytes.Equal(gotSum, sentHash.Sum(nil)) {
		return fmt.Errorf("received %d bytes, sha256 %x; sent %d, sha256 %x", n, gotSum[:8], size, sentHash.Sum(nil)[:8])
	}
	chunkID, ok := sent.id.(pulsar.ChunkMessageID)
	if !ok {
		return errors.New("the message was not chunked; try a larger -size")
	}
	fmt.Fprintf(out, "\r%-70s\rstreamed and verified %s in %v (%s/s), streamed on receipt: %v, %d chunks, id %s\n", "",
		human(size), elapsed.Round(time.Millisecond), human(int(float64(size)/elapsed.Seconds())), stream.Streamed(),
		producer.Stats().ChunksSent, chunkID)
	if err := consumer.Ack(stream); err != nil {
		return err
	}

	// Seek back to the message's chunk id and stream it again.
	restored, err := pulsar.DeserializeMessageID(chunkID.Serialize())
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "seeking back to the first chunk %s\n", messageid.FirstChunk(restored))
	start = time.Now()
	if err := consumer.Seek(restored); err != nil {
		return fmt.Errorf("seek: %w", err)
	}
	again, err := consumer.ReceiveStream(ctx)
	if err != nil {
		return fmt.Errorf("after seek: %w", err)
	}
	sum2, n2, err := hashStream(again, out, start, size)
	if err != nil {
		return fmt.Errorf("after seek: %w", err)
	}
	if n2 != int64(size) || !bytes.Equal(sum2, gotSum) {
		return fmt.Errorf("after seek: %d bytes, sha256 %x", n2, sum2[:8])
	}
	fmt.Fprintf(out, "\r%-70s\rstreamed it again after the seek in %v\n", "", time.Since(start).Round(time.Millisecond))
	if err := consumer.Ack(again); err != nil {
		return err
	}
	if hwm, err := peakRSS(); err == nil {
		fmt.Fprintf(out, "peak RSS of this process (VmHWM): %s\n", human(int(hwm)))
	}
	return nil
}

// hashStream reads s to its end into SHA-256, showing progress.
func hashStream(s *pulsar.MessageStream, out io.Writer, start time.Time, size int) ([]byte, int64, error) {
	h := sha256.New()
	w := &progress{w: h, out: out, start: start, size: size}
	n, err := io.Copy(w, s)
	return h.Sum(nil), n, err
}

// progress counts the bytes written through it and prints them now and then.
type progress struct {
	w     hash.Hash
	out   io.Writer
	start time.Time
	size  int
	n     int
	last  time.Time
}

func (p *progress) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.n += n
	if now := time.Now(); now.Sub(p.last) > 200*time.Millisecond {
		p.last = now
		fmt.Fprintf(p.out, "\r  received %s of %s (%s/s)   ", human(p.n), human(p.size),
			human(int(float64(p.n)/now.Sub(p.start).Seconds())))
	}
	return n, err
}

// generator yields left pseudo-random bytes.
type generator struct {
	left int
	rng  *rand.Rand
}

func (g *generator) Read(p []byte) (int, error) {
	if g.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), g.left) &^ 7
	if n == 0 {
		n = min(len(p), g.left)
	}
	for i := 0; i+8 <= n; i += 8 {
		v := g.rng.Uint64()
		for j := range 8 {
			p[i+j] = byte(v >> (8 * j))
		}
	}
	for i := n &^ 7; i < n; i++ {
		p[i] = byte(g.rng.Uint64())
	}
	g.left -= n
	return n, nil
}

// peakRSS returns the process's peak resident set size (VmHWM) in bytes.
func peakRSS() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/self/status")
}
