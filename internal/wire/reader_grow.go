package wire

import "bufio"

// A frame's buffer grows with the bytes that arrive, so that what a peer
// claims in a frame's size costs memory only once it has sent a fair part
// of it:
//
//   - a frame of up to growDirect bytes gets its buffer at once;
//   - a larger frame gets a buffer the pool has free (memory already held),
//     when there is one, and is read into it directly: a steady stream of
//     large frames costs nothing more than before;
//   - otherwise nothing is allocated until the Reader's own buffer (32 KiB)
//     is full of the frame's bytes (or holds the whole frame). The frame is
//     then read into a buffer of at most growFactor times what has arrived,
//     growing so, until 1/growFactor of the frame has arrived; only then is
//     the buffer of the frame's full size allocated, and the rest of the
//     frame read into it directly. These steps' buffers come from the
//     pool, or, without one, are a buffer the Reader keeps for the next
//     frames (stepBuffer).
//
// So a peer that sends the size of a 5 MiB frame and two bytes costs no
// allocation beyond the Reader's buffer, and what the Reader holds for a
// frame is never more than growFactor times what arrived (besides the step
// buffer that an earlier frame's bytes grew, at most 1/growFactor of the
// largest frame read). A frame of up to
// 512 KiB gets its full buffer once 32 KiB of it have arrived (no copy);
// a larger one, up to 8 MiB, takes one step of 1/16 of it, the only bytes
// copied beyond the kernel's copy. (With 1/8, the 1 MiB frames of
// BenchmarkReadFrame1MiB cost 12-16 % more CPU than a buffer of the
// claimed size; with 1/16 the difference is within the noise.)
const (
	growDirect = 4 << 10
	growFactor = 16
)

// readFrameBytes returns the n bytes of the frame whose 4-byte size is in
// r.hdr: the size followed by the rest of the frame, read from the stream.
func (r *Reader) readFrameBytes(n int) ([]byte, error) {
	if n <= growDirect {
		buf := r.pool.get(n)
		copy(buf, r.hdr[:])
		return buf, r.readInto(buf[4:])
	}
	if buf, ok := r.pool.free(n); ok {
		copy(buf, r.hdr[:])
		return buf, r.readInto(buf[4:])
	}
	have := 4
	if br, ok := r.r.(*bufio.Reader); ok {
		// Wait, at no cost, until the frame's bytes fill the buffer that
		// exists anyway (or the frame is in it whole).
		b, err := br.Peek(min(n-4, br.Size()))
		if err != nil {
			return nil, err
		}
		have += len(b)
	}
	share := (n + growFactor - 1) / growFactor // the part that commits the frame's size
	var tmp []byte
	for have < share {
		next := r.stepBuffer(min(share, growFactor*have), tmp)
		if tmp == nil {
			copy(next, r.hdr[:])
			have = 4
		}
		tmp = next
		if err := r.readInto(tmp[have:]); err != nil {
			r.pool.put(tmp)
			return nil, err
		}
		have = len(tmp)
	}
	buf := r.pool.getUncleared(n)
	if tmp == nil {
		copy(buf, r.hdr[:])
		have = 4
	} else {
		copy(buf, tmp)
		r.pool.put(tmp)
	}
	return buf, r.readInto(buf[have:])
}

// stepBuffer returns a buffer of n bytes for a step of a growing frame,
// holding the bytes of prev, the previous step (nil at the first). With a
// pool, it comes from the pool and prev goes back to it. Without one, the
// Reader keeps its largest step buffer for the next frames: a stream of
// large frames then allocates only their own buffers, as before frames
// grew. (A new step buffer per frame, 64 KiB beside each 1 MiB frame,
// made BenchmarkReadFrame1MiB take three times the page faults, 31-34k
// against 10-11k per 1,000 frames, and up to three times the time: the
// runtime's scavenger gave back pages the next frames faulted in again,
// 17 % of the CPU in its madvise calls against 5 % with no step buffer.)
func (r *Reader) stepBuffer(n int, prev []byte) []byte {
	if r.pool != nil {
		next := r.pool.getUncleared(n)
		copy(next, prev)
		r.pool.put(prev)
		return next
	}
	if cap(r.step) < n {
		next := make([]byte, n)
		copy(next, prev)
		r.step = next
	}
	return r.step[:n]
}
