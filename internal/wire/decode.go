package wire

import (
	"encoding/binary"
	"strconv"

	protobuf "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// unmarshalOpts keeps unknown fields (the body of an unknown command lives
// there) and bounds nesting far above what the protocol uses. AllowPartial
// lets checkCommand classify a command before required fields are checked.
var unmarshalOpts = protobuf.UnmarshalOptions{AllowPartial: true, RecursionLimit: 64}

// strictOpts is for metadata: required fields must be present.
var strictOpts = protobuf.UnmarshalOptions{RecursionLimit: 64}

// DecodeFrame decodes the one frame that buf holds exactly (buf starts at
// TOTAL_SIZE and ends with the frame). maxFrameSize limits TOTAL_SIZE
// (DefaultMaxFrameSize when <= 0). The returned frame's RawMeta and Payload
// alias buf.
//
// Checks, in order, each reported as a *FrameError: TOTAL_SIZE <=
// maxFrameSize (ErrFrameTooLarge) and >= 4 (ErrBadSize); buf holds the whole
// frame (ErrTruncated) and nothing more (ErrBadSize); CMD_SIZE fits
// (ErrBadSize); the command decodes (ErrMalformed), its type is known and has
// a field (ErrUnknownCommand), that field is set and required fields are
// present (ErrMalformed); then, for a payload frame, an optional
// broker-entry-metadata section fits (ErrBadSize) and decodes (ErrMalformed),
// the CRC32C matches when the checksum section is present (ErrChecksum), and
// the message metadata fits (ErrBadSize) and decodes with its required fields
// (ErrMalformed). Errors found after the command decoded carry it in
// FrameError.Cmd.
//
// A payload frame without the 0x0e01 checksum section (from old peers) has
// METADATA_SIZE right after the command (or the broker entry metadata); it is
// accepted with HasChecksum false. This is unambiguous while maxFrameSize is
// below 0x0e010000 bytes, since a METADATA_SIZE starting with a magic would
// exceed the frame.
func DecodeFrame(buf []byte, maxFrameSize int) (Frame, error) {
	if len(buf) < 4 {
		return Frame{}, newError(ErrTruncated, "need 4 bytes of frame size, have "+strconv.Itoa(len(buf)), nil)
	}
	total := binary.BigEndian.Uint32(buf)
	if err := checkTotalSize(total, maxFrameSize); err != nil {
		return Frame{}, err
	}
	if uint64(len(buf)-4) < uint64(total) {
		return Frame{}, newError(ErrTruncated,
			"frame of "+itoa(uint64(total)+4)+" bytes, have "+strconv.Itoa(len(buf)), nil)
	}
	if uint64(len(buf)-4) > uint64(total) {
		return Frame{}, newError(ErrBadSize,
			strconv.Itoa(len(buf)-4-int(total))+" bytes after the frame", nil)
	}
	return decodeBody(buf[4:])
}

// decodeBody decodes the TOTAL_SIZE bytes after the size field.
func decodeBody(body []byte) (Frame, error) {
	cmdSize := binary.BigEndian.Uint32(body)
	if uint64(cmdSize) > uint64(len(body)-4) {
		return Frame{}, newError(ErrBadSize,
			"command size "+itoa(uint64(cmdSize))+" > "+strconv.Itoa(len(body)-4)+" bytes left", nil)
	}
	cmd, err := decodeCommand(body[4 : 4+cmdSize])
	if err != nil {
		return Frame{}, err
	}
	f := Frame{Cmd: cmd, Size: len(body) + 4}
	rest := body[4+cmdSize:]
	if len(rest) == 0 {
		return f, nil
	}
	f.HasPayload = true
	if err := decodePayload(&f, rest); err != nil {
		return Frame{}, err
	}
	return f, nil
}

// decodeCommand unmarshals and checks a BaseCommand.
func decodeCommand(b []byte) (*proto.BaseCommand, error) {
	cmd := &proto.BaseCommand{}
	if err := unmarshalOpts.Unmarshal(b, cmd); err != nil {
		return nil, newError(ErrMalformed, "decoding command", err)
	}
	if err := checkCommand(cmd); err != nil {
		return nil, err
	}
	if err := protobuf.CheckInitialized(cmd); err != nil {
		return nil, cmdError(ErrMalformed, "decoding command", err, cmd)
	}
	return cmd, nil
}

// decodePayload parses the sections after the command into f.
func decodePayload(f *Frame, b []byte) error {
	if len(b) >= 2 && binary.BigEndian.Uint16(b) == MagicBrokerEntryMetadata {
		if len(b) < 6 {
			return cmdError(ErrBadSize, "broker entry metadata header cut short", nil, f.Cmd)
		}
		size := binary.BigEndian.Uint32(b[2:])
		if uint64(size) > uint64(len(b)-6) {
			return cmdError(ErrBadSize, "broker entry metadata size "+itoa(uint64(size))+
				" > "+strconv.Itoa(len(b)-6)+" bytes left", nil, f.Cmd)
		}
		bm := &proto.BrokerEntryMetadata{}
		if err := strictOpts.Unmarshal(b[6:6+size], bm); err != nil {
			return cmdError(ErrMalformed, "decoding broker entry metadata", err, f.Cmd)
		}
		f.BrokerMeta = bm
		b = b[6+size:]
	}
	if len(b) >= 2 && binary.BigEndian.Uint16(b) == MagicChecksum {
		if len(b) < 6 {
			return cmdError(ErrBadSize, "checksum header cut short", nil, f.Cmd)
		}
		want := binary.BigEndian.Uint32(b[2:])
		b = b[6:]
		if got := updateCRC(0, b); got != want {
			return cmdError(ErrChecksum, "received 0x"+strconv.FormatUint(uint64(want), 16)+
				", computed 0x"+strconv.FormatUint(uint64(got), 16), nil, f.Cmd)
		}
		f.HasChecksum, f.Checksum = true, want
	}
	if len(b) < 4 {
		return cmdError(ErrBadSize, "metadata size cut short", nil, f.Cmd)
	}
	size := binary.BigEndian.Uint32(b)
	if uint64(size) > uint64(len(b)-4) {
		return cmdError(ErrBadSize, "metadata size "+itoa(uint64(size))+
			" > "+strconv.Itoa(len(b)-4)+" bytes left", nil, f.Cmd)
	}
	raw := b[4 : 4+size : 4+size]
	meta := &proto.MessageMetadata{}
	if err := strictOpts.Unmarshal(raw, meta); err != nil {
		return cmdError(ErrMalformed, "decoding message metadata", err, f.Cmd)
	}
	f.Meta = meta
	f.RawMeta = raw
	f.Payload = b[4+size:]
	return nil
}
