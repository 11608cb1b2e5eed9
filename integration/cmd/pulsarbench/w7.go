package main

import (
	"context"
	"fmt"
	"os"
	"time"
)

// w7Size is the size of W7's three chunked messages.
const w7Size = 64 << 20

// w7Msgs is how many 1 KiB messages W7 sends after its seek.
const w7Msgs = 20_000

// runW7 measures W7 in a process that has sent and received nothing before
// (a -one child): three 64 MiB messages sent, received, the second sought
// by the id Send returned and received again; then 20,000 1 KiB messages
// sent asynchronously.
func runW7(ctx context.Context, cfg config, s side, small, big []byte, out *sample) error {
	topic := fmt.Sprintf("persistent://public/default/bench-w7-%d-%s", time.Now().UnixNano(), s.name())
	seek, err := s.seekSecond(ctx, topic, big[:min(w7Size, len(big))])
	if err != nil {
		return fmt.Errorf("w7 seek: %w", err)
	}
	out.W7SeekMs = millis(seek)
	// CPU is steadier than wall time on a shared machine: the process's
	// whole CPU so far (payload filled, three messages sent and received,
	// the seek) goes to stderr beside the seek's own (seekToSecond).
	fmt.Fprintf(os.Stderr, "w7 %s: process CPU after the seek-then-receive %.0f ms\n", s.name(), millis(cpuClock{}.now().self))
	if err := deleteTopic(ctx, cfg.adminURL, topic); err != nil {
		return err
	}
	d, _, err := measure(func() error { return s.produce(ctx, topic+"-small", w7Msgs, small) })
	if err != nil {
		return fmt.Errorf("w7 send: %w", err)
	}
	out.W7SendPerSec = float64(w7Msgs) / d.Seconds()
	return deleteTopic(ctx, cfg.adminURL, topic+"-small")
}

// seekToSecond sends three messages (send returns each one's id), receives
// them, then measures a seek to the second one's id and receiving it.
func seekToSecond[ID any](send func() (ID, error), receive func() (int, error), seek func(ID) error, size int) (time.Duration, error) {
	var ids []ID
	for range 3 {
		id, err := send()
		if err != nil {
			return 0, err
		}
		ids = append(ids, id)
	}
	for range 3 {
		if n, err := receive(); err != nil {
			return 0, err
		} else if n != size {
			return 0, fmt.Errorf("received %d bytes, want %d", n, size)
		}
	}
	start, cpu := time.Now(), cpuClock{}.now()
	if err := seek(ids[1]); err != nil {
		return 0, err
	}
	n, err := receive()
	if err != nil {
		return 0, err
	}
	if n != size {
		return 0, fmt.Errorf("after the seek: received %d bytes, want %d", n, size)
	}
	took := time.Since(start)
	fmt.Fprintf(os.Stderr, "w7: seek-then-receive %.1f ms, CPU %.1f ms\n", millis(took), millis(cpuClock{}.now().sub(cpu).self))
	return took, nil
}
