package conn

import (
	"context"
	"fmt"
	"time"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/proto"
)

// Request sends cmd, whose inner command carries requestID (from
// NewRequestID), and waits for the response with that id, at most the
// operation timeout. A CommandError (or an error code in a typed response)
// comes back as a *ServerError. A PRODUCER_SUCCESS that says the producer
// is not ready yet (a WaitForExclusive producer queued behind another)
// ends the timeout, as in the official client: Request then waits, as long
// as ctx lets it, for the PRODUCER_SUCCESS that says ready.
func (c *Conn) Request(ctx context.Context, requestID uint64, cmd *proto.BaseCommand) (*proto.BaseCommand, error) {
	c.opts.Metrics.Add(api.MetricRPCRequests, 1)
	ch := make(chan response, 2) // room for a not-ready answer and the final one
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
	for {
		select {
		case r := <-ch:
			if r.err != nil {
				return nil, r.err
			}
			if notReady(r.cmd) {
				timer.Stop()
				continue
			}
			return r.cmd, responseError(r.cmd)
		case <-timer.C:
			return nil, fmt.Errorf("%w: %s after %v", ErrTimeout, cmd.GetType(), c.opts.OperationTimeout)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// notReady reports whether cmd is a PRODUCER_SUCCESS whose producer waits
// for exclusive access.
func notReady(cmd *proto.BaseCommand) bool {
	ps := cmd.GetProducerSuccess()
	return ps != nil && ps.ProducerReady != nil && !ps.GetProducerReady()
}

// complete hands a response to its waiter, if it still waits. A
// not-ready PRODUCER_SUCCESS leaves the waiter in place for the answer
// that follows, and is dropped if the waiter has not read the last one, so
// that the final answer always finds room. (The read loop is the only
// caller.)
func (c *Conn) complete(requestID uint64, cmd *proto.BaseCommand) {
	c.mu.Lock()
	ch := c.waiters[requestID]
	wait := notReady(cmd)
	if !wait {
		delete(c.waiters, requestID)
	}
	c.mu.Unlock()
	if ch == nil || wait && len(ch) > 0 {
		return
	}
	ch <- response{cmd: cmd}
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
