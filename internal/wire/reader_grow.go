package wire

import "bufio"

// A frame's buffer grows with the bytes that arrive, so that what a peer
// claims in a frame's size costs memory only once it has sent that much:
//
//   - a frame of up to growDirect bytes gets its buffer at once;
//   - a larger frame gets a buffer the pool has free (memory already held),
//     when there is one, and is read into it directly;
//   - otherwise nothing is allocated until the Reader's own buffer (32 KiB)
//     is full of the frame's bytes (or holds the whole frame); then the
//     frame is read into a buffer that doubles as it fills, from growStart
//     (or the frame's size, when smaller), until 1/commitShare of the
//     frame has arrived; only then is the buffer of the frame's full size
//     allocated, and the rest of the frame read into it directly.
//
// A peer that sends the size of a 5 MiB frame and two bytes costs no
// allocation beyond the Reader's buffer; one that sends 1/8 of it costs at
// most 2x what it sent until then. The bytes copied beyond the kernel's copy
// are at most 1/commitShare*2 of the frame, and none when the pool has a
// buffer free (a steady stream of large frames).
const (
	growDirect  = 4 << 10
	growStart   = 64 << 10
	commitShare = 8
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
	if br, ok := r.r.(*bufio.Reader); ok {
		// Wait, at no cost, until the frame's bytes fill the buffer that
		// exists anyway (or the frame is in it whole).
		if _, err := br.Peek(min(n-4, br.Size())); err != nil {
			return nil, err
		}
	}
	have := 4
	tmp := r.pool.get(min(n, growStart))
	copy(tmp, r.hdr[:])
	for {
		if err := r.readInto(tmp[have:]); err != nil {
			r.pool.put(tmp)
			return nil, err
		}
		have = len(tmp)
		if have == n {
			return tmp, nil
		}
		if have*commitShare >= n || 2*have >= n {
			break
		}
		next := r.pool.get(2 * have)
		copy(next, tmp)
		r.pool.put(tmp)
		tmp = next
	}
	buf := r.pool.get(n)
	copy(buf, tmp)
	r.pool.put(tmp)
	return buf, r.readInto(buf[have:])
}
