package pulsar

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// IoMaxSize is the number of buffers BinarySerializer keeps for reuse, as
// the official client's.
const IoMaxSize = 1024

// binaryBufSize is the size of each buffer a BinaryFreeList lends: room for
// the largest fixed-size value (8 bytes) and a little more, as the official
// client's.
const binaryBufSize = 10

// BinaryFreeList is a free list of small buffers for reading and writing
// fixed-size integers, as the official client's: Borrow takes a buffer (a
// new one when the list is empty), Return gives it back (dropped when the
// list is full). A channel, so safe for concurrent use; make(BinaryFreeList,
// n) keeps up to n buffers.
type BinaryFreeList chan []byte

// BinarySerializer is the free list ReadElements and WriteElements use, of
// IoMaxSize buffers, under the official client's name. It holds only spare
// buffers (no state that changes what a call does).
var BinarySerializer BinaryFreeList = make(chan []byte, IoMaxSize)

// Borrow returns a buffer of 10 bytes from the list, or a new one.
func (b BinaryFreeList) Borrow() []byte {
	var buf []byte
	select {
	case buf = <-b:
	default:
	}
	if cap(buf) < binaryBufSize {
		buf = make([]byte, binaryBufSize)
	}
	return buf[:binaryBufSize]
}

// Return gives buf back to the list, or drops it when the list is full.
func (b BinaryFreeList) Return(buf []byte) {
	select {
	case b <- buf:
	default:
	}
}

// read fills n bytes of a borrowed buffer from r and decodes them with f.
func readFixed[T any](b BinaryFreeList, r io.Reader, n int, f func([]byte) T) (T, error) {
	buf := b.Borrow()[:n]
	defer b.Return(buf)
	var zero T
	if _, err := io.ReadFull(r, buf); err != nil {
		return zero, err
	}
	return f(buf), nil
}

// writeFixed encodes into n bytes of a borrowed buffer with f and writes
// them to w.
func writeFixed(b BinaryFreeList, w io.Writer, n int, f func([]byte)) error {
	buf := b.Borrow()[:n]
	defer b.Return(buf)
	f(buf)
	_, err := w.Write(buf)
	return err
}

// Uint8 reads one byte from r.
func (b BinaryFreeList) Uint8(r io.Reader) (uint8, error) {
	return readFixed(b, r, 1, func(p []byte) uint8 { return p[0] })
}

// Uint16 reads two bytes from r in byteOrder.
func (b BinaryFreeList) Uint16(r io.Reader, byteOrder binary.ByteOrder) (uint16, error) {
	return readFixed(b, r, 2, byteOrder.Uint16)
}

// Uint32 reads four bytes from r in byteOrder.
func (b BinaryFreeList) Uint32(r io.Reader, byteOrder binary.ByteOrder) (uint32, error) {
	return readFixed(b, r, 4, byteOrder.Uint32)
}

// Uint64 reads eight bytes from r in byteOrder.
func (b BinaryFreeList) Uint64(r io.Reader, byteOrder binary.ByteOrder) (uint64, error) {
	return readFixed(b, r, 8, byteOrder.Uint64)
}

// Float64 decodes the first 8 bytes of buf as a big-endian IEEE 754
// double; a shorter buf is an error wrapping io.ErrShortBuffer.
func (b BinaryFreeList) Float64(buf []byte) (float64, error) {
	if len(buf) < 8 {
		return 0, fmt.Errorf("cannot decode binary double: %w", io.ErrShortBuffer)
	}
	return math.Float64frombits(binary.BigEndian.Uint64(buf)), nil
}

// Float32 decodes the first 4 bytes of buf as a big-endian IEEE 754
// float; a shorter buf is an error wrapping io.ErrShortBuffer.
func (b BinaryFreeList) Float32(buf []byte) (float32, error) {
	if len(buf) < 4 {
		return 0, fmt.Errorf("cannot decode binary float: %w", io.ErrShortBuffer)
	}
	return math.Float32frombits(binary.BigEndian.Uint32(buf)), nil
}

// PutUint8 writes val to w.
func (b BinaryFreeList) PutUint8(w io.Writer, val uint8) error {
	return writeFixed(b, w, 1, func(p []byte) { p[0] = val })
}

// PutUint16 writes val to w in byteOrder.
func (b BinaryFreeList) PutUint16(w io.Writer, byteOrder binary.ByteOrder, val uint16) error {
	return writeFixed(b, w, 2, func(p []byte) { byteOrder.PutUint16(p, val) })
}

// PutUint32 writes val to w in byteOrder.
func (b BinaryFreeList) PutUint32(w io.Writer, byteOrder binary.ByteOrder, val uint32) error {
	return writeFixed(b, w, 4, func(p []byte) { byteOrder.PutUint32(p, val) })
}

// PutUint64 writes val to w in byteOrder.
func (b BinaryFreeList) PutUint64(w io.Writer, byteOrder binary.ByteOrder, val uint64) error {
	return writeFixed(b, w, 8, func(p []byte) { byteOrder.PutUint64(p, val) })
}

// PutDouble encodes a Go number as a big-endian IEEE 754 double (8
// bytes). float64, float32, int, int64 and int32 are accepted; an integer
// that a double cannot hold exactly, or another type, is an error.
func (b BinaryFreeList) PutDouble(datum any) ([]byte, error) {
	var v float64
	switch d := datum.(type) {
	case float64:
		v = d
	case float32:
		v = float64(d)
	case int:
		if v = float64(d); int(v) != d {
			return nil, fmt.Errorf("serialize failed: provided Go int would lose precision: %d", d)
		}
	case int64:
		if v = float64(d); int64(v) != d {
			return nil, fmt.Errorf("serialize failed: provided Go int64 would lose precision: %d", d)
		}
	case int32:
		if v = float64(d); int32(v) != d {
			return nil, fmt.Errorf("serialize failed: provided Go int32 would lose precision: %d", d)
		}
	default:
		return nil, fmt.Errorf("serialize failed: expected: Go numeric; received: %T", datum)
	}
	return binary.BigEndian.AppendUint64(nil, math.Float64bits(v)), nil
}

// PutFloat encodes a Go number as a big-endian IEEE 754 float (4 bytes).
// float32, float64 (rounded), int, int64 and int32 are accepted; an
// integer that a float cannot hold exactly, or another type, is an error.
func (b BinaryFreeList) PutFloat(datum any) ([]byte, error) {
	var v float32
	switch d := datum.(type) {
	case float32:
		v = d
	case float64:
		v = float32(d)
	case int:
		if v = float32(d); int(v) != d {
			return nil, fmt.Errorf("serialize failed: provided Go int would lose precision: %d", d)
		}
	case int64:
		if v = float32(d); int64(v) != d {
			return nil, fmt.Errorf("serialize failed: provided Go int64 would lose precision: %d", d)
		}
	case int32:
		if v = float32(d); int32(v) != d {
			return nil, fmt.Errorf("serialize failed: provided Go int32 would lose precision: %d", d)
		}
	default:
		return nil, fmt.Errorf("serialize failed: expected: Go numeric; received: %T", datum)
	}
	return binary.BigEndian.AppendUint32(nil, math.Float32bits(v)), nil
}

// ReadElements reads each element (a pointer) from r in turn, as the
// official client: *int8, *int16, *int32, *int64 little-endian, *bool one
// byte (0 is false), anything else with binary.Read little-endian. It stops
// at the first error (io.EOF or io.ErrUnexpectedEOF when r runs out).
func ReadElements(r io.Reader, elements ...any) error {
	for _, e := range elements {
		if err := readElement(r, e); err != nil {
			return err
		}
	}
	return nil
}

// WriteElements writes each element to w in turn, as the official client:
// int8, int16, int32, int64 little-endian, bool one byte (1 or 0), anything
// else with binary.Write little-endian (an error for a type it cannot
// encode). It stops at the first error.
func WriteElements(w io.Writer, elements ...any) error {
	for _, e := range elements {
		if err := writeElement(w, e); err != nil {
			return err
		}
	}
	return nil
}

// readElement reads one element; on an error it is left as it was.
func readElement(r io.Reader, element any) error {
	le := binary.LittleEndian
	s := BinarySerializer
	switch e := element.(type) {
	case *int8:
		return into(e, func() (int8, error) { v, err := s.Uint8(r); return int8(v), err })
	case *int16:
		return into(e, func() (int16, error) { v, err := s.Uint16(r, le); return int16(v), err })
	case *int32:
		return into(e, func() (int32, error) { v, err := s.Uint32(r, le); return int32(v), err })
	case *int64:
		return into(e, func() (int64, error) { v, err := s.Uint64(r, le); return int64(v), err })
	case *bool:
		return into(e, func() (bool, error) { v, err := s.Uint8(r); return v != 0, err })
	}
	return binary.Read(r, le, element)
}

// into stores what read returns in *p, unless it fails.
func into[T any](p *T, read func() (T, error)) error {
	v, err := read()
	if err != nil {
		return err
	}
	*p = v
	return nil
}

func writeElement(w io.Writer, element any) error {
	le := binary.LittleEndian
	s := BinarySerializer
	switch e := element.(type) {
	case int8:
		return s.PutUint8(w, uint8(e))
	case int16:
		return s.PutUint16(w, le, uint16(e))
	case int32:
		return s.PutUint32(w, le, uint32(e))
	case int64:
		return s.PutUint64(w, le, uint64(e))
	case bool:
		var v uint8
		if e {
			v = 1
		}
		return s.PutUint8(w, v)
	}
	return binary.Write(w, le, element)
}
