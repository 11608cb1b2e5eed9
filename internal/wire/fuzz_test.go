package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"

	protobuf "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

var sentinels = []error{ErrTruncated, ErrFrameTooLarge, ErrBadSize, ErrChecksum, ErrMalformed, ErrUnknownCommand, ErrBadBatch}

// checkTyped fails unless err is a *FrameError of a sentinel kind.
func checkTyped(t *testing.T, err error) {
	t.Helper()
	var fe *FrameError
	if !errors.As(err, &fe) {
		t.Fatalf("untyped error %T: %v", err, err)
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("error of no sentinel kind: %v", err)
}

// seedFrames are valid frames of several kinds plus garbage.
func seedFrames(t testing.TB) [][]byte {
	seeds := [][]byte{pingFrame(t), goldenSend, validPayloadFrame(t)}
	for _, typ := range []proto.BaseCommand_Type{proto.BaseCommand_CONNECT, proto.BaseCommand_SUBSCRIBE,
		proto.BaseCommand_ACK, proto.BaseCommand_LOOKUP_RESPONSE, proto.BaseCommand_GET_LAST_MESSAGE_ID_RESPONSE} {
		b, err := AppendCommand(nil, sampleCommandNoT(typ))
		if err != nil {
			panic(err)
		}
		seeds = append(seeds, b)
	}
	meta := sampleMeta("p", 1)
	meta.NumMessagesInBatch = protobuf.Int32(2)
	hdr, err := AppendPayloadHeaderWithBrokerMeta(nil, messageCommand(1, 2, 3),
		&proto.BrokerEntryMetadata{Index: protobuf.Uint64(7)}, marshalT(meta), goldenBatch)
	if err != nil {
		panic(err)
	}
	seeds = append(seeds, append(hdr, goldenBatch...))
	seeds = append(seeds,
		nil,
		[]byte{0xff, 0xff, 0xff, 0xff},
		[]byte{0, 0, 0, 4, 0, 0, 0, 0},
		rawFrame([]byte{0x08, 99, 0x9a, 0x06, 0x02, 0x08, 0x07}, nil),
		rawFrame([]byte{0x08, 64, 0x82, 0x04, 0x02, 0x08, 0x0b}, nil),
		rawFrame(marshalT(sendCommand(1, 2)), []byte{0x0e, 0x01, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}),
		rawFrame(marshalT(sendCommand(1, 2)), []byte{0x0e, 0x02, 0, 0, 0}),
	)
	return seeds
}

func sampleCommandNoT(typ proto.BaseCommand_Type) *proto.BaseCommand {
	msg := fieldOf(typ).mt.New()
	populate(msg, 0, true)
	cmd, err := NewCommand(typ, msg.Interface())
	if err != nil {
		panic(err)
	}
	return cmd
}

func marshalT(m protobuf.Message) []byte {
	b, err := protobuf.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// checkFrame asserts the invariants of a successfully decoded frame: its size,
// and that it re-encodes into a frame that decodes to the same values.
func checkFrame(t *testing.T, f Frame, wireLen int) {
	t.Helper()
	if f.Size != wireLen {
		t.Fatalf("Size %d, frame had %d bytes", f.Size, wireLen)
	}
	if f.Cmd == nil || Payload(f.Cmd) == nil {
		t.Fatalf("decoded frame without command payload")
	}
	var re []byte
	var err error
	if !f.HasPayload {
		if f.Meta != nil || f.Payload != nil || f.RawMeta != nil || f.BrokerMeta != nil {
			t.Fatalf("simple frame with payload fields")
		}
		re, err = AppendCommand(nil, f.Cmd)
	} else {
		if f.Meta == nil || f.Payload == nil {
			t.Fatalf("payload frame without metadata or payload")
		}
		if len(f.RawMeta)+len(f.Payload) > wireLen {
			t.Fatalf("sections larger than the frame")
		}
		re, err = AppendPayloadHeaderWithBrokerMeta(nil, f.Cmd, f.BrokerMeta, f.RawMeta, f.Payload)
		re = append(re, f.Payload...)
	}
	if err != nil {
		t.Fatalf("re-encoding a decoded frame: %v", err)
	}
	g, err := DecodeFrame(re, len(re))
	if err != nil {
		t.Fatalf("decoding a re-encoded frame: %v", err)
	}
	if !protobuf.Equal(f.Cmd, g.Cmd) || !protobuf.Equal(f.Meta, g.Meta) || !protobuf.Equal(f.BrokerMeta, g.BrokerMeta) ||
		!bytes.Equal(f.RawMeta, g.RawMeta) || !bytes.Equal(f.Payload, g.Payload) || f.HasPayload != g.HasPayload {
		t.Fatalf("re-encoded frame differs")
	}
	if f.HasPayload && !g.HasChecksum {
		t.Fatalf("encoder wrote no checksum")
	}
}

func FuzzDecodeFrame(f *testing.F) {
	for _, s := range seedFrames(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := DecodeFrame(data, 64<<10)
		if err != nil {
			checkTyped(t, err)
			return
		}
		checkFrame(t, fr, len(data))
	})
}

func FuzzReader(f *testing.F) {
	seeds := seedFrames(f)
	for _, s := range seeds {
		f.Add(s)
	}
	f.Add(bytes.Join(seeds, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		const maxFrame = 1 << 10
		r := NewReader(bytes.NewReader(data), maxFrame)
		consumed := 0
		for i := 0; ; i++ {
			if i > len(data)/4+1 {
				t.Fatalf("more frames than the input can hold")
			}
			fr, err := r.ReadFrame()
			if err == io.EOF {
				if consumed != len(data) {
					t.Fatalf("EOF after %d of %d bytes", consumed, len(data))
				}
				return
			}
			// Size of the frame just read, for consumed-bytes accounting.
			var size int
			if consumed+4 <= len(data) {
				size = 4 + int(uint32(data[consumed])<<24|uint32(data[consumed+1])<<16|
					uint32(data[consumed+2])<<8|uint32(data[consumed+3]))
			}
			if err != nil {
				if errors.Is(err, ErrTruncated) || errors.Is(err, ErrFrameTooLarge) ||
					(errors.Is(err, ErrBadSize) && size < 8) {
					checkTyped(t, err)
					if _, again := r.ReadFrame(); again != err {
						t.Fatalf("fatal error not sticky: %v then %v", err, again)
					}
					return
				}
				checkTyped(t, err)
				// A frame-level error: the frame was consumed, and
				// DecodeFrame agrees on it.
				if _, derr := DecodeFrame(data[consumed:consumed+size], maxFrame); derr == nil {
					t.Fatalf("Reader failed (%v), DecodeFrame succeeded", err)
				}
				consumed += size
				continue
			}
			if size-4 > maxFrame || fr.Size != size {
				t.Fatalf("frame size %d, header said %d", fr.Size, size)
			}
			checkFrame(t, fr, size)
			consumed += size
		}
	})
}

func FuzzMessageMetadata(f *testing.F) {
	meta := sampleMeta("p", 1)
	f.Add(marshalT(meta))
	populate(meta.ProtoReflect(), 0, true)
	f.Add(marshalT(meta))
	f.Add(goldenSend[26:33])
	f.Add([]byte{})
	f.Add([]byte{0xff, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		var m proto.MessageMetadata
		if err := strictOpts.Unmarshal(data, &m); err != nil {
			return
		}
		b1, err := marshalOpts.Marshal(&m)
		if err != nil {
			t.Fatalf("decoded metadata does not encode: %v", err)
		}
		var m2 proto.MessageMetadata
		if err := strictOpts.Unmarshal(b1, &m2); err != nil {
			t.Fatalf("re-encoded metadata does not decode: %v", err)
		}
		if !protobuf.Equal(&m, &m2) {
			t.Fatalf("metadata changed by re-encoding")
		}
		b2, err := marshalOpts.Marshal(&m2)
		if err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("encoding not stable: %v", err)
		}
		// Through a frame, both as a message and as raw bytes.
		fr, err := AppendPayloadFrame(nil, sendCommand(1, 1), &m, []byte("x"))
		if err != nil {
			t.Fatalf("frame: %v", err)
		}
		dec, err := DecodeFrame(fr, len(fr))
		if err != nil || !protobuf.Equal(&m, dec.Meta) || !bytes.Equal(dec.RawMeta, b1) {
			t.Fatalf("frame round trip: %v", err)
		}
		hdr, err := AppendPayloadHeaderRaw(nil, sendCommand(1, 1), data, []byte("x"))
		if err == nil {
			dec, err = DecodeFrame(append(hdr, 'x'), 0)
			if err != nil || !bytes.Equal(dec.RawMeta, data) {
				t.Fatalf("raw metadata not kept as received: %v", err)
			}
		} else if len(data) != 0 {
			t.Fatalf("raw header: %v", err)
		}
	})
}

func FuzzSplitBatch(f *testing.F) {
	f.Add(goldenBatch, 2)
	f.Add(goldenBatch, 1)
	f.Add(goldenBatch, 3)
	f.Add([]byte{0, 0, 0, 2, 0x18, 0}, 1)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x18, 0}, 1)
	f.Add([]byte{}, 0)
	f.Add(goldenBatch, -1)
	f.Fuzz(func(t *testing.T, payload []byte, n int) {
		var re []byte
		total := 0
		count := 0
		err := SplitBatch(payload, n, func(i int, smm *proto.SingleMessageMetadata, body []byte) error {
			if i != count {
				t.Fatalf("index %d, want %d", i, count)
			}
			count++
			if int(smm.GetPayloadSize()) != len(body) || cap(body) != len(body) {
				t.Fatalf("body of %d bytes (cap %d), payload_size %d", len(body), cap(body), smm.GetPayloadSize())
			}
			total += len(body)
			var err error
			re, err = AppendBatchEntry(re, protobuf.Clone(smm).(*proto.SingleMessageMetadata), body)
			if err != nil {
				t.Fatalf("re-encoding: %v", err)
			}
			return nil
		})
		if err != nil {
			checkTyped(t, err)
			if _, derr := DecodeBatch(payload, n); derr == nil {
				t.Fatalf("SplitBatch failed, DecodeBatch did not")
			}
			return
		}
		if count != n || total > len(payload) || n*MinBatchEntrySize > len(payload) {
			t.Fatalf("count %d of %d, bodies %d of %d bytes", count, n, total, len(payload))
		}
		msgs, err := DecodeBatch(re, n)
		if err != nil {
			t.Fatalf("re-encoded batch: %v", err)
		}
		orig, err := DecodeBatch(payload, n)
		if err != nil {
			t.Fatalf("DecodeBatch: %v", err)
		}
		for i := range msgs {
			if !protobuf.Equal(msgs[i].Meta, orig[i].Meta) || !bytes.Equal(msgs[i].Body, orig[i].Body) {
				t.Fatalf("message %d differs after re-encoding", i)
			}
		}
	})
}
