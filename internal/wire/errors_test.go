package wire

import (
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/proto"
)

func TestFrameErrorFormatAndUnwrap(t *testing.T) {
	e := &FrameError{Kind: ErrUnknownCommand, Msg: "command type not supported",
		Type: proto.BaseCommand_END_TXN, RequestID: 9, HasRequestID: true}
	assert.Equal(t, "wire: unknown command: command type not supported (type 56 END_TXN, request_id 9)", e.Error())
	assert.ErrorIs(t, e, ErrUnknownCommand)
	assert.NotErrorIs(t, e, ErrMalformed)

	e = &FrameError{Kind: ErrTruncated, Msg: "stream ended", Err: io.ErrUnexpectedEOF}
	assert.Equal(t, "wire: truncated frame: stream ended: unexpected EOF", e.Error())
	assert.ErrorIs(t, e, ErrTruncated)
	assert.ErrorIs(t, e, io.ErrUnexpectedEOF)

	e = &FrameError{Kind: ErrUnknownCommand, Type: 99}
	assert.Equal(t, "wire: unknown command (type 99)", e.Error())
	assert.Equal(t, "wire: error", (&FrameError{}).Error())

	wrapped := errors.Join(errors.New("ctx"), e)
	var fe *FrameError
	require.ErrorAs(t, wrapped, &fe)
	assert.EqualValues(t, 99, fe.Type)
}

func TestSentinelsDistinct(t *testing.T) {
	all := []error{ErrTruncated, ErrFrameTooLarge, ErrBadSize, ErrChecksum, ErrMalformed, ErrUnknownCommand, ErrBadBatch}
	for i, a := range all {
		for j, b := range all {
			assert.Equal(t, i == j, errors.Is(a, b))
		}
	}
}
