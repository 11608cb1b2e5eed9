package brokerstub

import (
	"github.com/pulsargo/sdk/internal/proto"
)

// outFrame is one frame waiting to be written: the encoded header (the
// whole frame for a simple command) and, for a MESSAGE, the payload, which is
// written from the ledger's buffer without a copy. Topic goroutines push
// them to a connection's frameq.Queue and never block on a slow client.
type outFrame struct {
	cmd     *proto.BaseCommand
	header  []byte
	payload []byte
}
