package wire

import (
	"errors"
	"strconv"
	"strings"

	"github.com/pulsargo/sdk/internal/proto"
)

// Sentinel errors. Every error returned by this package for bad input or an
// unencodable value is a *FrameError whose Kind is one of these, so callers
// test with errors.Is(err, ErrChecksum) and reach details with errors.As.
var (
	// ErrTruncated: the input ends before the frame it announces does (a
	// buffer shorter than 4+TOTAL_SIZE, or a stream that ends mid-frame).
	ErrTruncated = errors.New("wire: truncated frame")
	// ErrFrameTooLarge: TOTAL_SIZE exceeds the maximum frame size, or a frame
	// being encoded would not fit the 32-bit size field.
	ErrFrameTooLarge = errors.New("wire: frame too large")
	// ErrBadSize: a size field is inconsistent with the frame that holds it
	// (TOTAL_SIZE < 4, CMD_SIZE or a metadata size running past the frame,
	// trailing bytes after the frame).
	ErrBadSize = errors.New("wire: bad size field")
	// ErrChecksum: the CRC32C of a payload frame does not match.
	ErrChecksum = errors.New("wire: checksum mismatch")
	// ErrMalformed: a protobuf message does not decode, lacks a required
	// field, or the command's type field disagrees with the field that is set.
	ErrMalformed = errors.New("wire: malformed message")
	// ErrUnknownCommand: the command's type is not one this package can
	// decode (not in the enum, or in the enum but without a field in our
	// BaseCommand, such as Pulsar's transaction-buffer and topic-watcher
	// commands). The frame was consumed whole, so a broker may answer it and
	// carry on.
	ErrUnknownCommand = errors.New("wire: unknown command")
	// ErrBadBatch: a batch payload does not hold exactly the announced number
	// of well-formed messages.
	ErrBadBatch = errors.New("wire: bad batch payload")
)

// FrameError is the error type of this package. Kind is one of the sentinel
// errors above; Err, if set, is the underlying cause (a protobuf error,
// io.ErrUnexpectedEOF). errors.Is matches both Kind and Err.
type FrameError struct {
	// Kind is the sentinel error that classifies the failure.
	Kind error
	// Msg describes the failure (sizes, offsets).
	Msg string
	// Err is the underlying error, or nil.
	Err error
	// Cmd is the decoded command when the failure came after it was decoded
	// (a bad checksum or bad metadata in a SEND frame, so that a broker can
	// answer with CommandSendError). It is nil otherwise, and it may lack
	// required fields when Kind is ErrMalformed.
	Cmd *proto.BaseCommand
	// Type is the command's numeric type when it is known (0 otherwise; no
	// Pulsar command has type 0). For ErrUnknownCommand it is the number the
	// peer sent.
	Type proto.BaseCommand_Type
	// RequestID is the command's request_id, valid when HasRequestID is set.
	// For an unknown command it is recovered from the raw bytes for the
	// commands whose layout is known (see RequestID).
	RequestID uint64
	// HasRequestID reports whether RequestID is valid.
	HasRequestID bool
}

// Error implements error: "wire: <kind>: <msg> (type N NAME, request_id R): <cause>".
func (e *FrameError) Error() string {
	var b strings.Builder
	if e.Kind != nil {
		b.WriteString(e.Kind.Error())
	} else {
		b.WriteString("wire: error")
	}
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	if e.Type != 0 || e.HasRequestID {
		b.WriteString(" (")
		if e.Type != 0 {
			b.WriteString("type ")
			b.WriteString(strconv.Itoa(int(e.Type)))
			if name := typeName(e.Type); name != "" {
				b.WriteString(" ")
				b.WriteString(name)
			}
		}
		if e.HasRequestID {
			if e.Type != 0 {
				b.WriteString(", ")
			}
			b.WriteString("request_id ")
			b.WriteString(strconv.FormatUint(e.RequestID, 10))
		}
		b.WriteString(")")
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns Kind and Err (when set) for errors.Is and errors.As.
func (e *FrameError) Unwrap() []error {
	errs := make([]error, 0, 2)
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// newError builds a *FrameError without command context.
func newError(kind error, msg string, cause error) *FrameError {
	return &FrameError{Kind: kind, Msg: msg, Err: cause}
}

// cmdError builds a *FrameError carrying the decoded command, its type and,
// if it has one, its request id.
func cmdError(kind error, msg string, cause error, cmd *proto.BaseCommand) *FrameError {
	e := &FrameError{Kind: kind, Msg: msg, Err: cause, Cmd: cmd}
	if cmd != nil {
		e.Type = cmd.GetType()
		e.RequestID, e.HasRequestID = RequestID(cmd)
	}
	return e
}
