package conn

import (
	"context"
	"fmt"
	"time"

	"github.com/pulsargo/sdk/internal/proto"
)

// Request sends cmd, whose inner command carries requestID (from
// NewRequestID), and waits for the response with that id, at most the
// operation timeout. A CommandError (or an error code in a typed response)
// comes back as a *ServerError.
func (c *Conn) Request(ctx context.Context, requestID uint64, cmd *proto.BaseCommand) (*proto.BaseCommand, error) {
	ch := make(chan response, 1)
	c.mu.Lock()
	if c.Err() != nil {
		c.mu.Unlock()
		return nil, fmt.Errorf("%w: %w", ErrClosed, c.closeErr)
	}
	c.waiters[requestID] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiters, requestID)
		c.mu.Unlock()
	}()
	if err := c.Send(cmd); err != nil {
		return nil, err
	}
	timer := time.NewTimer(c.opts.OperationTimeout)
	defer timer.Stop()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		return r.cmd, responseError(r.cmd)
	case <-timer.C:
		return nil, fmt.Errorf("%w: %s after %v", ErrTimeout, cmd.GetType(), c.opts.OperationTimeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// complete hands a response to its waiter, if it still waits.
func (c *Conn) complete(requestID uint64, cmd *proto.BaseCommand) {
	c.mu.Lock()
	ch := c.waiters[requestID]
	delete(c.waiters, requestID)
	c.mu.Unlock()
	if ch != nil {
		ch <- response{cmd: cmd}
	}
}

// responseError extracts the error a typed response carries, if any.
func responseError(cmd *proto.BaseCommand) error {
	switch cmd.GetType() {
	case proto.BaseCommand_ERROR:
		e := cmd.GetError()
		return &ServerError{Code: e.GetError(), Message: e.GetMessage()}
	case proto.BaseCommand_LOOKUP_RESPONSE:
		r := cmd.GetLookupTopicResponse()
		if r.GetResponse() == proto.CommandLookupTopicResponse_Failed {
			return &ServerError{Code: r.GetError(), Message: r.GetMessage()}
		}
	case proto.BaseCommand_PARTITIONED_METADATA_RESPONSE:
		r := cmd.GetPartitionMetadataResponse()
		if r.GetResponse() == proto.CommandPartitionedTopicMetadataResponse_Failed {
			return &ServerError{Code: r.GetError(), Message: r.GetMessage()}
		}
	case proto.BaseCommand_ACK_RESPONSE:
		if r := cmd.GetAckResponse(); r.Error != nil {
			return &ServerError{Code: r.GetError(), Message: r.GetMessage()}
		}
	case proto.BaseCommand_GET_SCHEMA_RESPONSE:
		if r := cmd.GetGetSchemaResponse(); r.ErrorCode != nil {
			return &ServerError{Code: r.GetErrorCode(), Message: r.GetErrorMessage()}
		}
	case proto.BaseCommand_GET_OR_CREATE_SCHEMA_RESPONSE:
		if r := cmd.GetGetOrCreateSchemaResponse(); r.ErrorCode != nil {
			return &ServerError{Code: r.GetErrorCode(), Message: r.GetErrorMessage()}
		}
	}
	return nil
}
