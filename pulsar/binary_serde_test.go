package pulsar

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteReadElementsLittleEndian(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteElements(&buf, int8(-2), int16(0x0102), int32(-5), int64(1)<<40, true, false, uint16(0xABCD), float32(1.5)))
	want := []byte{0xFE, 0x02, 0x01, 0xFB, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0xCD, 0xAB}
	want = binary.LittleEndian.AppendUint32(want, math.Float32bits(1.5))
	assert.Equal(t, want, buf.Bytes())

	var (
		i8  int8
		i16 int16
		i32 int32
		i64 int64
		t1  bool
		f1  = true
		u16 uint16
		f32 float32
	)
	require.NoError(t, ReadElements(bytes.NewReader(buf.Bytes()), &i8, &i16, &i32, &i64, &t1, &f1, &u16, &f32))
	assert.Equal(t, int8(-2), i8)
	assert.Equal(t, int16(0x0102), i16)
	assert.Equal(t, int32(-5), i32)
	assert.Equal(t, int64(1)<<40, i64)
	assert.True(t, t1)
	assert.False(t, f1)
	assert.Equal(t, uint16(0xABCD), u16)
	assert.Equal(t, float32(1.5), f32)
}

func TestReadElementsShortInputLeavesElement(t *testing.T) {
	v := int64(7)
	err := ReadElements(bytes.NewReader([]byte{1, 2, 3}), &v)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Equal(t, int64(7), v)
	var b bool
	assert.ErrorIs(t, ReadElements(bytes.NewReader(nil), &b), io.EOF)
	var x struct{ A, B int32 }
	assert.Error(t, ReadElements(bytes.NewReader([]byte{1}), &x))
	assert.Error(t, WriteElements(io.Discard, "not fixed size"))
	assert.Error(t, ReadElements(bytes.NewReader([]byte{1}), 3), "not a pointer")
}

func TestBinaryFreeListFloatsAndBuffers(t *testing.T) {
	d, err := BinarySerializer.PutDouble(int32(-3))
	require.NoError(t, err)
	assert.Equal(t, binary.BigEndian.AppendUint64(nil, math.Float64bits(-3)), d)
	got, err := BinarySerializer.Float64(d)
	require.NoError(t, err)
	assert.Equal(t, -3.0, got)
	_, err = BinarySerializer.PutDouble(int64(1)<<60 + 1)
	assert.ErrorContains(t, err, "lose precision")
	_, err = BinarySerializer.PutDouble("3")
	assert.Error(t, err)
	f, err := BinarySerializer.PutFloat(float64(0.25))
	require.NoError(t, err)
	g, err := BinarySerializer.Float32(f)
	require.NoError(t, err)
	assert.Equal(t, float32(0.25), g)
	_, err = BinarySerializer.PutFloat(1<<25 + 1)
	assert.ErrorContains(t, err, "lose precision")
	_, err = BinarySerializer.Float64([]byte{1, 2})
	assert.ErrorIs(t, err, io.ErrShortBuffer)
	_, err = BinarySerializer.Float32([]byte{1})
	assert.ErrorIs(t, err, io.ErrShortBuffer)

	// A small list: a returned buffer is lent again, a full list drops it,
	// an empty one makes new buffers, and all of it is safe concurrently.
	l := make(BinaryFreeList, 1)
	a := l.Borrow()
	assert.Len(t, a, 10)
	l.Return(a)
	l.Return(make([]byte, 10)) // full: dropped
	assert.Len(t, l, 1)
	l.Return(nil)
	assert.Len(t, l.Borrow(), 10)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			var buf bytes.Buffer
			if err := l.PutUint32(&buf, binary.BigEndian, uint32(i)); err != nil {
				t.Error(err)
			}
			v, err := l.Uint32(&buf, binary.BigEndian)
			if err != nil || v != uint32(i) {
				t.Error(v, err)
			}
		})
	}
	wg.Wait()
}
