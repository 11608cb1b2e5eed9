package protocol

import (
	"encoding/binary"
	"sync"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// outFrame is one frame waiting to be written: the encoded header (the
// whole frame for a simple command) and, for a MESSAGE, the payload, which is
// written from the ledger's buffer without a copy. Topic goroutines push
// them to a connection's frameq.Queue and never block on a slow client.
//
// The command is encoded when the frame is queued and not kept, so that
// the dispatch loop can build every MESSAGE in one reused command
// (messageScratch): an interceptor gets the command decoded from the header
// (command).
type outFrame struct {
	header  []byte
	payload []byte
	last    bool // the writer closes the connection once it has written it
	// delivery: a MESSAGE to a consumer, which the client's flow permits
	// bound; it does not count in the connection's outBudget.
	delivery bool
}

// outFrameOverhead is what a queued frame costs beyond its bytes: its slot
// in the queue and its header's allocation. Counting it keeps a flood of
// tiny frames (PONGs of 10 bytes) within the bound in memory, not only in
// bytes to write.
const outFrameOverhead = 64

// size is how many bytes the frame adds to its connection's outBudget: a
// delivery adds none. The budget pauses the connection's reads, and only
// what the client's own requests make the broker write (receipts, answers,
// PONGs) may: a Pulsar broker by default reads on whatever it has queued
// for the client (pulsarChannelPauseReceivingRequestsIfUnwritable=false),
// and a client may take its deliveries only once the broker has read what
// it writes. The official Go client is one: its connection reader waits on
// a producer's pending queue, whose lock the producer holds while it waits
// to write; pausing reads because deliveries fill the queue deadlocked it
// on a 1,000-partition topic until its sends timed out
// (TestDeliveriesDoNotPauseReads).
func (f outFrame) size() int {
	if f.delivery {
		return 0
	}
	return len(f.header) + len(f.payload) + outFrameOverhead
}

// Command decodes the frame's command from its header, for an interceptor:
// [total size][command size][command]...
func (f outFrame) Command() *proto.BaseCommand {
	cmd := &proto.BaseCommand{}
	if len(f.header) < 8 {
		return cmd
	}
	size := binary.BigEndian.Uint32(f.header[4:8])
	if uint64(size) > uint64(len(f.header)-8) {
		return cmd
	}
	_ = gproto.UnmarshalOptions{AllowPartial: true}.Unmarshal(f.header[8:8+size], cmd)
	return cmd
}

// outBudget counts the bytes of a connection's frames, other than
// deliveries (outFrame.size), that are queued or being written: Pulsar's
// channel writability. Pushers add, the writer
// subtracts what it has written, and the read loop waits before reading
// the next frame while more than high are counted, until no more than low
// are (newOutBudget). Safe for concurrent use.
type outBudget struct {
	mu        sync.Mutex
	used      int
	high, low int
	room      chan struct{} // while the read loop waits: closed at low
}

// newOutBudget is a connection's outBudget: paused past the write buffer's
// high-water mark with Options.PauseReceivingIfUnwritable, as Pulsar with
// pulsarChannelPauseReceivingRequestsIfUnwritable; otherwise, as Pulsar by
// default, reading on while answers queue, up to Options.MaxQueuedAnswers.
func newOutBudget(o Config) outBudget {
	if o.PauseReceivingIfUnwritable {
		return outBudget{high: o.WriteBufferHighWaterMark, low: o.WriteBufferLowWaterMark}
	}
	return outBudget{high: o.MaxQueuedAnswers, low: o.MaxQueuedAnswers / 2}
}

func (b *outBudget) add(n int) {
	b.mu.Lock()
	b.used += n
	b.mu.Unlock()
}

// sub counts n bytes written (or dropped), waking the read loop when the
// queue is down to the low-water mark.
func (b *outBudget) sub(n int) {
	b.mu.Lock()
	b.used -= n
	if b.room != nil && b.used <= b.low {
		close(b.room)
		b.room = nil
	}
	b.mu.Unlock()
}

// Queued returns the bytes counted.
func (b *outBudget) Queued() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Wait returns at once while the queue is within the high-water mark
// (true); past it, once the queue is down to the low-water mark (true) or
// done closes (false). One goroutine (the read loop) waits.
func (b *outBudget) Wait(done <-chan struct{}) bool {
	b.mu.Lock()
	if b.used <= b.high {
		b.mu.Unlock()
		return true
	}
	if b.room == nil {
		b.room = make(chan struct{})
	}
	room := b.room
	b.mu.Unlock()
	select {
	case <-room:
		return true
	case <-done:
		return false
	}
}
