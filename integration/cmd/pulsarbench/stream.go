package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsar/log"
	"github.com/pulsargo/sdk/pulsar"
	"github.com/sirupsen/logrus"
)

// The stream workload (-w stream, not in the default run): one message of
// -stream-size bytes (1 GiB) through the broker, the producer and the
// consumer each in a process of its own so that each one's peak RSS
// (VmHWM) is its own:
//
//	ours    SendReader from a generator, ReceiveStream into io.Discard:
//	        neither process holds the payload
//	theirs  the official client's Send of the payload in memory (its
//	        MemoryLimitBytes raised above it) and Receive
//	raw     the payload through the relay child, as W2's raw baseline
//
// The time is from the producer's start to the consumer's end; the
// consumer subscribes first.

// streamRole runs one side of the stream workload in this process
// (-stream-role) and prints "stream-done <peak RSS bytes>".
func streamRole(ctx context.Context, cfg config, stdout io.Writer) error {
	var err error
	switch cfg.streamRole {
	case "ours-produce":
		err = oursStreamProduce(ctx, cfg)
	case "ours-consume":
		err = oursStreamConsume(ctx, cfg, stdout)
	case "theirs-produce":
		err = theirsWholeProduce(ctx, cfg)
	case "theirs-consume":
		err = theirsWholeConsume(ctx, cfg, stdout)
	default:
		err = fmt.Errorf("unknown -stream-role %q", cfg.streamRole)
	}
	if err != nil {
		return err
	}
	hwm, err := peakRSS()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "stream-done %d\n", hwm)
	return nil
}

func oursStreamProduce(ctx context.Context, cfg config) error {
	c, err := pulsar.NewClient(pulsar.ClientOptions{URL: cfg.url})
	if err != nil {
		return err
	}
	defer c.Close()
	p, err := c.CreateProducer(pulsar.ProducerOptions{Topic: cfg.streamTopic, EnableChunking: true, DisableBatching: true})
	if err != nil {
		return err
	}
	defer p.Close()
	_, err = p.SendReader(ctx, &pulsar.ProducerMessage{}, &pattern{left: cfg.streamSize}, int64(cfg.streamSize))
	return err
}

func oursStreamConsume(ctx context.Context, cfg config, stdout io.Writer) error {
	c, err := pulsar.NewClient(pulsar.ClientOptions{URL: cfg.url})
	if err != nil {
		return err
	}
	defer c.Close()
	cons, err := c.Subscribe(pulsar.ConsumerOptions{Topic: cfg.streamTopic, SubscriptionName: "bench",
		SubscriptionInitialPosition: pulsar.SubscriptionPositionEarliest})
	if err != nil {
		return err
	}
	defer cons.Close()
	fmt.Fprintln(stdout, "stream-ready")
	s, err := cons.ReceiveStream(ctx)
	if err != nil {
		return err
	}
	n, err := io.Copy(io.Discard, s)
	if err != nil {
		return err
	}
	if n != int64(cfg.streamSize) || !s.Streamed() {
		return fmt.Errorf("received %d bytes (streamed %v), want %d streamed", n, s.Streamed(), cfg.streamSize)
	}
	return cons.Ack(s)
}

func theirsClient(cfg config) (official.Client, error) {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return official.NewClient(official.ClientOptions{URL: cfg.url, Logger: log.NewLoggerWithLogrus(l),
		MemoryLimitBytes: int64(cfg.streamSize) + 64<<20})
}

func theirsWholeProduce(ctx context.Context, cfg config) error {
	c, err := theirsClient(cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	p, err := c.CreateProducer(official.ProducerOptions{Topic: cfg.streamTopic, EnableChunking: true, DisableBatching: true})
	if err != nil {
		return err
	}
	defer p.Close()
	payload := make([]byte, cfg.streamSize)
	if _, err := io.ReadFull(&pattern{left: cfg.streamSize}, payload); err != nil {
		return err
	}
	_, err = p.Send(ctx, &official.ProducerMessage{Payload: payload})
	return err
}

func theirsWholeConsume(ctx context.Context, cfg config, stdout io.Writer) error {
	c, err := theirsClient(cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	// Its consumer gives up on a chunked message incomplete after a minute
	// by default: sending 1 GiB may take longer on a loaded machine.
	cons, err := c.Subscribe(official.ConsumerOptions{Topic: cfg.streamTopic, SubscriptionName: "bench",
		SubscriptionInitialPosition: official.SubscriptionPositionEarliest, ExpireTimeOfIncompleteChunk: 30 * time.Minute})
	if err != nil {
		return err
	}
	defer cons.Close()
	fmt.Fprintln(stdout, "stream-ready")
	m, err := cons.Receive(ctx)
	if err != nil {
		return err
	}
	if len(m.Payload()) != cfg.streamSize {
		return fmt.Errorf("received %d bytes, want %d", len(m.Payload()), cfg.streamSize)
	}
	return cons.Ack(m)
}

// pattern yields left bytes of a cheap pattern.
type pattern struct{ left, off int }

func (p *pattern) Read(b []byte) (int, error) {
	if p.left == 0 {
		return 0, io.EOF
	}
	n := min(len(b), p.left)
	for i := range b[:n] {
		b[i] = byte(p.off + i)
	}
	p.off += n
	p.left -= n
	return n, nil
}

// roleProcess is a child running one -stream-role.
type roleProcess struct {
	cmd   *exec.Cmd
	lines chan string
}

func startRole(ctx context.Context, cfg config, url, role, topic string) (*roleProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe, "-url", url, "-stream-role", role, "-stream-topic", topic,
		"-stream-size", strconv.Itoa(cfg.streamSize))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &roleProcess{cmd: cmd, lines: make(chan string, 4)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	return p, nil
}

// wait returns the line starting with prefix, or an error once the
// process's output ends without it.
func (p *roleProcess) wait(prefix string) (string, error) {
	for l := range p.lines {
		if rest, ok := strings.CutPrefix(l, prefix); ok {
			return strings.TrimSpace(rest), nil
		}
	}
	return "", errors.Join(fmt.Errorf("%s: no %q line", p.cmd.Args[len(p.cmd.Args)-5], prefix), p.cmd.Wait())
}

// streamRun is one run of a client: time and the two processes' peak RSS.
type streamRun struct {
	secs                   float64
	produceRSS, consumeRSS int64
}

func runStreamClient(ctx context.Context, cfg config, url, client string, rep int) (streamRun, error) {
	topic := fmt.Sprintf("persistent://public/default/bench-stream-%s-%d-%d", client, rep, time.Now().UnixNano())
	defer func() { _ = deleteTopic(ctx, cfg.adminURL, topic) }()
	cons, err := startRole(ctx, cfg, url, client+"-consume", topic)
	if err != nil {
		return streamRun{}, err
	}
	if _, err := cons.wait("stream-ready"); err != nil {
		return streamRun{}, err
	}
	start := time.Now()
	prod, err := startRole(ctx, cfg, url, client+"-produce", topic)
	if err != nil {
		return streamRun{}, err
	}
	crss, err := cons.wait("stream-done")
	if err != nil {
		return streamRun{}, err
	}
	secs := time.Since(start).Seconds()
	prss, err := prod.wait("stream-done")
	if err != nil {
		return streamRun{}, err
	}
	_ = cons.cmd.Wait()
	_ = prod.cmd.Wait()
	var r streamRun
	r.secs = secs
	r.produceRSS, _ = strconv.ParseInt(prss, 10, 64)
	r.consumeRSS, _ = strconv.ParseInt(crss, 10, 64)
	return r, nil
}

// streamBench runs the stream workload and prints its table.
func streamBench(ctx context.Context, cfg config, url string, relay *childProcess, out io.Writer) error {
	mb := float64(cfg.streamSize) / 1e6
	fmt.Fprintf(out, "stream workload: one message of %d bytes, producer and consumer in processes of their own\n", cfg.streamSize)
	res := map[string][]streamRun{}
	for rep := range cfg.reps {
		for _, client := range cfg.clients {
			r, err := runStreamClient(ctx, cfg, url, client, rep)
			if err != nil {
				return fmt.Errorf("%s stream run %d: %w", client, rep, err)
			}
			res[client] = append(res[client], r)
			fmt.Fprintf(out, "  run %d %-6s %.1f s  %.1f MB/s  producer peak RSS %d MiB  consumer peak RSS %d MiB\n",
				rep, client, r.secs, mb/r.secs, r.produceRSS>>20, r.consumeRSS>>20)
		}
		if relay != nil {
			payload := make([]byte, cfg.streamSize)
			d, err := rawMove(relay.addr, payload, 1<<20)
			if err != nil {
				return err
			}
			res["raw"] = append(res["raw"], streamRun{secs: d.Seconds()})
			fmt.Fprintf(out, "  run %d raw    %.1f s  %.1f MB/s\n", rep, d.Seconds(), mb/d.Seconds())
		}
	}
	med := func(name string) float64 {
		var xs []float64
		for _, r := range res[name] {
			xs = append(xs, r.secs)
		}
		return median(xs)
	}
	fmt.Fprintf(out, "\n%-8s %10s %10s %14s %14s\n", "client", "median s", "MB/s", "producer RSS", "consumer RSS")
	for _, name := range append(append([]string(nil), cfg.clients...), "raw") {
		if len(res[name]) == 0 {
			continue
		}
		var p, c int64
		for _, r := range res[name] {
			p, c = max(p, r.produceRSS), max(c, r.consumeRSS)
		}
		fmt.Fprintf(out, "%-8s %10.1f %10.1f %11d MiB %11d MiB\n", name, med(name), mb/med(name), p>>20, c>>20)
	}
	if o, t := med("ours"), med("theirs"); o > 0 && t > 0 {
		fmt.Fprintf(out, "pulsarbench: stream ours/theirs throughput %.2f\n", t/o)
	}
	return nil
}

// peakRSS returns this process's peak resident set size (VmHWM) in bytes.
func peakRSS() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/self/status")
}
