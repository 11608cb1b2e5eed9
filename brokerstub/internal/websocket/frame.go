// Package websocket is a small RFC 6455 server: the opening handshake over
// net/http, framing with the masking clients must apply, ping/pong, close
// and fragmented messages, with a bound on the size of a message and no
// allocation sized by what a peer claims before that bound is checked.
// It serves brokerstub's WebSocket API and has no extensions
// (permessage-deflate is not negotiated).
package websocket

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Opcodes of RFC 6455 section 5.2.
const (
	OpContinuation = 0x0
	OpText         = 0x1
	OpBinary       = 0x2
	OpClose        = 0x8
	OpPing         = 0x9
	OpPong         = 0xA
)

// Close codes of RFC 6455 section 7.4.1 that the server sends.
const (
	CloseNormal          = 1000
	CloseGoingAway       = 1001
	CloseProtocolError   = 1002
	CloseUnsupportedData = 1003
	CloseNoStatus        = 1005
	CloseInvalidPayload  = 1007
	ClosePolicyViolation = 1008
	CloseMessageTooBig   = 1009
	CloseInternalError   = 1011
)

// maxControlPayload is the largest payload of a control frame (5.5).
const maxControlPayload = 125

// ErrProtocol is wrapped by the errors of frames that break RFC 6455; the
// connection is closed with 1002.
var ErrProtocol = errors.New("websocket: protocol error")

// ErrTooBig is wrapped by the error of a message larger than the limit;
// the connection is closed with 1009.
var ErrTooBig = errors.New("websocket: message too big")

// Header is a parsed frame header.
type Header struct {
	Fin    bool
	Opcode byte
	Masked bool
	Mask   [4]byte
	Length uint64
}

// ParseHeader parses the frame header at the start of b. It returns the
// header and its size; n == 0 with a nil error means b holds too few bytes
// yet. A header that breaks RFC 6455 for a client frame (reserved bits,
// an unknown opcode, a fragmented or oversized control frame, a
// non-minimal or 64-bit length with its top bit, no mask) is an error
// wrapping ErrProtocol; a length over limit one wrapping ErrTooBig.
func ParseHeader(b []byte, limit uint64) (Header, int, error) {
	var h Header
	if len(b) < 2 {
		return h, 0, nil
	}
	if b[0]&0x70 != 0 {
		return h, 0, fmt.Errorf("%w: reserved bits set (no extension was negotiated)", ErrProtocol)
	}
	h.Fin = b[0]&0x80 != 0
	h.Opcode = b[0] & 0x0F
	h.Masked = b[1]&0x80 != 0
	n := 2
	switch l := b[1] & 0x7F; l {
	case 126:
		if len(b) < 4 {
			return h, 0, nil
		}
		h.Length = uint64(binary.BigEndian.Uint16(b[2:]))
		if h.Length < 126 {
			return h, 0, fmt.Errorf("%w: length %d not in its shortest form", ErrProtocol, h.Length)
		}
		n = 4
	case 127:
		if len(b) < 10 {
			return h, 0, nil
		}
		h.Length = binary.BigEndian.Uint64(b[2:])
		if h.Length>>63 != 0 {
			return h, 0, fmt.Errorf("%w: 64-bit length with its most significant bit set", ErrProtocol)
		}
		if h.Length <= 0xFFFF {
			return h, 0, fmt.Errorf("%w: length %d not in its shortest form", ErrProtocol, h.Length)
		}
		n = 10
	default:
		h.Length = uint64(l)
	}
	switch h.Opcode {
	case OpContinuation, OpText, OpBinary:
	case OpClose, OpPing, OpPong:
		if !h.Fin {
			return h, 0, fmt.Errorf("%w: fragmented control frame", ErrProtocol)
		}
		if h.Length > maxControlPayload {
			return h, 0, fmt.Errorf("%w: control frame of %d bytes (at most %d)", ErrProtocol, h.Length, maxControlPayload)
		}
	default:
		return h, 0, fmt.Errorf("%w: unknown opcode %#x", ErrProtocol, h.Opcode)
	}
	if !h.Masked {
		return h, 0, fmt.Errorf("%w: client frame not masked", ErrProtocol)
	}
	if h.Length > limit {
		return h, 0, fmt.Errorf("%w: frame of %d bytes, limit %d", ErrTooBig, h.Length, limit)
	}
	if len(b) < n+4 {
		return h, 0, nil
	}
	copy(h.Mask[:], b[n:n+4])
	return h, n + 4, nil
}

// maskBytes XORs b with the mask, starting at offset pos of the payload.
func maskBytes(mask [4]byte, pos int, b []byte) {
	for i := range b {
		b[i] ^= mask[(pos+i)&3]
	}
}

// AppendFrame appends a server frame (unmasked, FIN set) of opcode and
// payload to dst.
func AppendFrame(dst []byte, opcode byte, payload []byte) []byte {
	dst = append(dst, 0x80|opcode)
	switch n := len(payload); {
	case n < 126:
		dst = append(dst, byte(n))
	case n <= 0xFFFF:
		dst = append(dst, 126)
		dst = binary.BigEndian.AppendUint16(dst, uint16(n))
	default:
		dst = append(dst, 127)
		dst = binary.BigEndian.AppendUint64(dst, uint64(n))
	}
	return append(dst, payload...)
}

// AppendClientFrame appends a masked client frame, for tests and clients.
func AppendClientFrame(dst []byte, fin bool, opcode byte, mask [4]byte, payload []byte) []byte {
	b0 := opcode
	if fin {
		b0 |= 0x80
	}
	dst = append(dst, b0)
	switch n := len(payload); {
	case n < 126:
		dst = append(dst, 0x80|byte(n))
	case n <= 0xFFFF:
		dst = append(dst, 0x80|126)
		dst = binary.BigEndian.AppendUint16(dst, uint16(n))
	default:
		dst = append(dst, 0x80|127)
		dst = binary.BigEndian.AppendUint64(dst, uint64(n))
	}
	dst = append(dst, mask[:]...)
	start := len(dst)
	dst = append(dst, payload...)
	maskBytes(mask, 0, dst[start:])
	return dst
}
