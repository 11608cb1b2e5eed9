package chunk

import (
	"fmt"

	"github.com/pulsargo/sdk/messageid"
)

// Incoming is one received chunk.
type Incoming struct {
	// Header is the chunk fields of the chunk's message metadata.
	Header
	// Payload is the chunk's (compressed) payload. The Assembler copies it;
	// the caller may reuse it once Add returns.
	Payload []byte
	// ID is the chunk's message id.
	ID messageid.ID
}

// Message is a reassembled chunked message. Add returns it for the message's
// last chunk; the rest of that chunk's metadata is the message's (the
// official clients build the message from the last chunk's properties,
// keys, publish and event time, which are the same in every chunk).
type Message struct {
	// UUID is the chunks' uuid.
	UUID string
	// Payload is the whole (compressed) payload, exactly the chunks'
	// TotalSize bytes in one buffer of that capacity. It belongs
	// to the caller and no longer counts against MaxPendingBytes.
	Payload []byte
	// ID names the first and the last chunk.
	ID messageid.ChunkMessageID
	// ChunkIDs are the ids of every chunk, in chunk order; acknowledging the
	// message means acknowledging all of them.
	ChunkIDs []messageid.ID
}

// Assembler reassembles chunked messages from chunks fed in arrival order,
// within the limits of its Options. It does no I/O, starts no goroutine and
// no timer: expiry is checked on each Add and by Expire. An Assembler is not
// safe for concurrent use; a consumer keeps one per partition.
//
// The zero Assembler is ready to use with the default Options.
//
// Every chunk fed to Add is accounted for: its id is returned in a Message's
// ChunkIDs or reported in a Discarded's ChunkIDs, except for a redelivery of
// a chunk that a pending message already holds (same chunk id, same message
// id), which is ignored because that message will return or report the id.
type Assembler struct {
	opts Options
	q    queue
}

// NewAssembler returns an Assembler with the given limits; zero fields of
// opts select the defaults documented on Options.
func NewAssembler(opts Options) *Assembler {
	return &Assembler{opts: opts.withDefaults()}
}

// Options returns the limits in force, defaults filled in.
func (a *Assembler) Options() Options { return a.opts.withDefaults() }

// Pending returns how many incomplete messages are buffered and the bytes
// their buffers reserve (at most MaxPendingBytes).
func (a *Assembler) Pending() (messages int, bytes int64) { return a.q.len(), a.q.reserved }

// Add feeds one chunk. It returns the completed message when the chunk is its
// last one, and reports every incomplete message or chunk given up on during
// the call (expired, evicted, superseded, or refused) in discarded, oldest
// first; the caller acknowledges or negatively acknowledges their ChunkIDs.
//
// err is non-nil when the incoming chunk itself was refused (invalid Header,
// out of order, sizes that do not add up, too large, ...): it is an *Error
// wrapping one of this package's sentinel errors, and it is also the Reason
// of the last element of discarded, whose ChunkIDs hold the ids of the
// incomplete message the chunk belonged to (now discarded) followed by the
// chunk's own id. Handle the ids once, from discarded.
//
// Rules, after discarding expired messages:
//   - an invalid Header (ErrInvalidChunk, ErrChunkIDOutOfRange) refuses the
//     chunk and discards any incomplete message of its uuid;
//   - a chunk whose NumChunks or TotalSize differ from those of the
//     incomplete message of its uuid discards that message (ErrMismatch); a
//     chunk 0 then starts a new message, any other chunk is refused with it;
//   - chunk 0 of a pending message: with the same message id it is a
//     redelivery and is ignored; with another id the pending message is
//     discarded (ErrSuperseded) and restarts from this chunk;
//   - chunk 0 of a new message is checked against MaxMessageSize
//     (ErrTooLarge), MaxPendingBytes (ErrOverBudget) and its own size
//     (ErrSizeMismatch) before anything is allocated; the oldest incomplete
//     messages are then evicted (ErrEvicted) until the new one fits
//     MaxPendingMessages and MaxPendingBytes; a one-chunk message completes
//     at once and is never pending;
//   - a later chunk without a pending message is refused (ErrUnknownMessage);
//     one already received is ignored if it has the same message id, and
//     reported alone (ErrDuplicate) otherwise; one that skips ahead is
//     refused (ErrOutOfOrder); one that overruns the total, or a last chunk
//     that leaves it short, is refused (ErrSizeMismatch).
//
// Add never panics, whatever the input.
func (a *Assembler) Add(in Incoming) (msg *Message, discarded []Discarded, err error) {
	if a.opts.Now == nil { // the zero Assembler
		a.opts = a.opts.withDefaults()
	}
	discarded = a.expire(discarded)
	uuid := in.UUID
	p := a.q.byUUID[uuid]
	if detail, reason := in.validate(); reason != nil {
		return a.refuse(discarded, p, uuid, in.ID, reason, detail)
	}
	chunkID, num, total := in.ChunkID, in.NumChunks, int64(in.TotalSize)

	if p != nil && (p.num != num || p.total != total) {
		detail := fmt.Sprintf("chunk %d says %d chunks, %d bytes; pending message has %d chunks, %d bytes",
			chunkID, num, total, p.num, p.total)
		if chunkID != 0 {
			return a.refuse(discarded, p, uuid, in.ID, ErrMismatch, detail)
		}
		discarded = append(discarded, a.discard(p, ErrMismatch, detail))
		p = nil
	}
	if chunkID == 0 {
		return a.start(discarded, p, in, num, total)
	}
	if p == nil {
		return a.refuse(discarded, nil, uuid, in.ID, ErrUnknownMessage,
			fmt.Sprintf("chunk %d of %d without chunk 0", chunkID, num))
	}

	next := int32(len(p.ids))
	switch {
	case chunkID < next:
		if messageid.Compare(p.ids[chunkID], in.ID) != 0 {
			discarded = append(discarded, newDiscarded(uuid, []messageid.ID{in.ID}, ErrDuplicate,
				fmt.Sprintf("chunk %d again as %v, first received as %v", chunkID, in.ID, p.ids[chunkID])))
		}
		return nil, discarded, nil
	case chunkID > next:
		return a.refuse(discarded, p, uuid, in.ID, ErrOutOfOrder,
			fmt.Sprintf("got chunk %d, want chunk %d", chunkID, next))
	}

	n := len(in.Payload)
	end := int64(p.written) + int64(n)
	last := chunkID == num-1
	if end > p.total || (last && end != p.total) {
		return a.refuse(discarded, p, uuid, in.ID, ErrSizeMismatch,
			fmt.Sprintf("chunk %d of %d brings the payload to %d bytes of %d", chunkID, num, end, p.total))
	}
	copy(p.buf[p.written:], in.Payload)
	p.written += n
	p.ids = append(p.ids, in.ID)
	if !last {
		return nil, discarded, nil
	}
	a.q.remove(p)
	return complete(p), discarded, nil
}

// newBuffer returns the buffer of a message of num chunks and total bytes:
// from Options.NewBuffer for a chunked message, when it gives one of that
// length.
func (a *Assembler) newBuffer(num int32, total int64) []byte {
	if num > 1 && a.opts.NewBuffer != nil {
		if b := a.opts.NewBuffer(int(total)); int64(len(b)) == total {
			return b
		}
	}
	return make([]byte, total)
}

// start handles chunk 0; p is the pending message of the same uuid with the
// same totals, if any.
func (a *Assembler) start(discarded []Discarded, p *pending, in Incoming, num int32, total int64) (*Message, []Discarded, error) {
	uuid := in.UUID
	if p != nil {
		if messageid.Compare(p.ids[0], in.ID) == 0 {
			return nil, discarded, nil // redelivery of the chunk 0 we hold
		}
		discarded = append(discarded, a.discard(p, ErrSuperseded,
			fmt.Sprintf("chunk 0 again as %v, first received as %v", in.ID, p.ids[0])))
	}
	n := int64(len(in.Payload))
	switch {
	case total > a.opts.MaxMessageSize:
		return a.refuse(discarded, nil, uuid, in.ID, ErrTooLarge,
			fmt.Sprintf("total size %d, maximum %d", total, a.opts.MaxMessageSize))
	case num > 1 && total > a.opts.MaxPendingBytes:
		return a.refuse(discarded, nil, uuid, in.ID, ErrOverBudget,
			fmt.Sprintf("total size %d, budget %d", total, a.opts.MaxPendingBytes))
	case n > total || (num == 1 && n != total):
		return a.refuse(discarded, nil, uuid, in.ID, ErrSizeMismatch,
			fmt.Sprintf("chunk 0 of %d has %d bytes of %d", num, n, total))
	}
	if num > 1 {
		discarded = a.makeRoom(discarded, total)
	}
	p = &pending{
		uuid:  uuid,
		num:   num,
		total: total,
		buf:   a.newBuffer(num, total),
		ids:   make([]messageid.ID, 0, min(int(num), maxPreallocIDs)),
	}
	p.written = copy(p.buf, in.Payload)
	p.ids = append(p.ids, in.ID)
	if num == 1 {
		return complete(p), discarded, nil
	}
	p.created = a.opts.Now()
	a.q.push(p)
	return nil, discarded, nil
}

// makeRoom evicts the oldest incomplete messages until one more of total
// bytes fits both limits.
func (a *Assembler) makeRoom(discarded []Discarded, total int64) []Discarded {
	for a.q.head != nil && a.q.len() >= a.opts.MaxPendingMessages {
		discarded = append(discarded, a.discard(a.q.head, ErrEvicted,
			fmt.Sprintf("%d incomplete messages pending, limit %d", a.q.len(), a.opts.MaxPendingMessages)))
	}
	for a.q.head != nil && a.q.reserved+total > a.opts.MaxPendingBytes {
		discarded = append(discarded, a.discard(a.q.head, ErrEvicted,
			fmt.Sprintf("%d bytes pending, %d more needed, budget %d", a.q.reserved, total, a.opts.MaxPendingBytes)))
	}
	return discarded
}

// Expire discards the incomplete messages older than ExpireAfter and reports
// them, oldest first. A consumer may call it from its own ticker; Add also
// calls it.
func (a *Assembler) Expire() []Discarded { return a.expire(nil) }

func (a *Assembler) expire(discarded []Discarded) []Discarded {
	if a.opts.ExpireAfter < 0 || a.q.head == nil {
		return discarded
	}
	now := a.opts.Now()
	for p := a.q.head; p != nil && !now.Before(p.created.Add(a.opts.ExpireAfter)); p = a.q.head {
		discarded = append(discarded, a.discard(p, ErrExpired,
			fmt.Sprintf("incomplete after %v (%d of %d chunks)", now.Sub(p.created), len(p.ids), p.num)))
	}
	return discarded
}

// Reset discards every incomplete message (for a seek or a reconnection) and
// reports them, oldest first.
func (a *Assembler) Reset() []Discarded {
	var discarded []Discarded
	for a.q.head != nil {
		discarded = append(discarded, a.discard(a.q.head, ErrReset, "reset"))
	}
	return discarded
}

// discard removes p and reports its chunks.
func (a *Assembler) discard(p *pending, reason error, detail string) Discarded {
	a.q.remove(p)
	return newDiscarded(p.uuid, p.ids, reason, detail)
}

// refuse rejects the incoming chunk id, together with the incomplete message
// p it belonged to (if any).
func (a *Assembler) refuse(discarded []Discarded, p *pending, uuid string, id messageid.ID, reason error, detail string) (*Message, []Discarded, error) {
	var ids []messageid.ID
	if p != nil {
		a.q.remove(p)
		ids = p.ids
	}
	d := newDiscarded(uuid, append(ids, id), reason, detail)
	return nil, append(discarded, d), d.Reason
}

func complete(p *pending) *Message {
	return &Message{
		UUID:     p.uuid,
		Payload:  p.buf,
		ID:       messageid.NewChunk(p.ids[0], p.ids[len(p.ids)-1]),
		ChunkIDs: p.ids,
	}
}
