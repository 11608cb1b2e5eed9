package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/pulsargo/sdk/internal/prefault"
)

// The raw baseline moves W2's payload through W2's topology with no Pulsar
// protocol: this process sends it over loopback TCP, in writes of the chunk
// size, to a relay in a child process, which keeps it in memory and
// acknowledges it with one byte (as the broker stores a message and sends a
// receipt); then this process connects again and the relay writes it back in
// writes of the chunk size (as the broker dispatches). W2 is reported as a
// fraction of it: what the machine can move, measured in the same run.

// serveRelay runs the relay on addr until ctx ends, announcing its address
// on stdout. Each connection starts with one byte: 'P' and an 8-byte length
// then the payload (the relay answers one byte when it has it all), or 'C'
// and the chunk size (the relay writes the last payload back).
func serveRelay(ctx context.Context, addr string, announce func(string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	go func() { <-ctx.Done(); ln.Close() }()
	announce(ln.Addr().String())
	var stored []byte
	for {
		c, err := ln.Accept()
		if err != nil {
			return nil
		}
		stored, err = relayOne(c, stored)
		c.Close()
		if err != nil {
			return err
		}
	}
}

// maxRelayPayload bounds what the relay accepts: a bigger announced length
// is refused before anything is allocated for it.
const maxRelayPayload = 1 << 30

func relayOne(c net.Conn, stored []byte) ([]byte, error) {
	var hdr [9]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return stored, fmt.Errorf("relay: %w", err)
	}
	n := binary.BigEndian.Uint64(hdr[1:])
	switch hdr[0] {
	case 'P':
		if n > maxRelayPayload {
			return stored, fmt.Errorf("relay: payload of %d bytes exceeds %d", n, maxRelayPayload)
		}
		if uint64(cap(stored)) < n {
			stored = make([]byte, n)
		}
		stored = stored[:n]
		if _, err := io.ReadFull(c, stored); err != nil {
			return stored, fmt.Errorf("relay: %w", err)
		}
		_, err := c.Write([]byte{1})
		return stored, err
	case 'C':
		chunk := int(min(max(n, 1), maxRelayPayload))
		for off := 0; off < len(stored); off += chunk {
			if _, err := c.Write(stored[off:min(off+chunk, len(stored))]); err != nil {
				return stored, err
			}
		}
		return stored, nil
	}
	return stored, fmt.Errorf("relay: unknown request %q", hdr[0])
}

// rawMove sends payload to the relay at addr in writes of chunk bytes,
// waits for its acknowledgment, then reads it back; it returns the time
// taken.
func rawMove(addr string, payload []byte, chunk int) (time.Duration, error) {
	start := time.Now()
	p, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	var hdr [9]byte
	hdr[0] = 'P'
	binary.BigEndian.PutUint64(hdr[1:], uint64(len(payload)))
	_, err = p.Write(hdr[:])
	for off := 0; err == nil && off < len(payload); off += chunk {
		_, err = p.Write(payload[off:min(off+chunk, len(payload))])
	}
	if err == nil {
		_, err = io.ReadFull(p, hdr[:1])
	}
	p.Close()
	if err != nil {
		return 0, fmt.Errorf("raw send: %w", err)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	hdr[0] = 'C'
	binary.BigEndian.PutUint64(hdr[1:], uint64(chunk))
	if _, err := c.Write(hdr[:]); err != nil {
		return 0, err
	}
	// The consumer reads into a new buffer of the payload's size, as a
	// reassembled message would be, its pages mapped in ahead as pulsargo
	// maps a reassembly buffer's (internal/prefault): the baseline is what
	// the machine can move, not what page faults leave of it.
	buf := make([]byte, len(payload))
	prefault.Bytes(buf)
	if _, err := io.ReadFull(c, buf); err != nil {
		return 0, fmt.Errorf("raw receive: %w", err)
	}
	return time.Since(start), nil
}
