package pulsar

import (
	"context"
	"fmt"
	"sync"
)

// zeroQueueConsumer is the Consumer of EnableZeroQueueConsumer: nothing is
// prefetched; each Receive gives the broker one permit and waits for the
// message it brings (a batch entry brings its messages together, and they
// are handed out before the next permit). Receives are served one at a
// time, as in the official client. Its name is the official client's, so
// that code (and tests) asserting the type keep compiling.
type zeroQueueConsumer struct {
	*consumerImpl
	mu sync.Mutex // one Receive at a time
}

// zeroQueueTargets refuses EnableZeroQueueConsumer where the official
// client does (a partitioned topic; RetryEnable is refused before) and on
// several topics, where one permit per Receive cannot be placed.
func zeroQueueTargets(opts ConsumerOptions, topics []string, targets []partitionTarget) error {
	switch {
	case !opts.EnableZeroQueueConsumer:
		return nil
	case len(topics) > 1:
		return fmt.Errorf("%w: ZeroQueueConsumer is not supported for multiple topics", ErrInvalidOptions)
	case len(targets) > 1:
		return fmt.Errorf("%w: ZeroQueueConsumer is not supported for partitioned topics", ErrInvalidOptions)
	}
	return nil
}

// Receive asks the broker for the next message and waits for it.
func (z *zeroQueueConsumer) Receive(ctx context.Context) (Message, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	select {
	case <-z.closed:
		return nil, ErrConsumerClosed
	default:
	}
	z.set.all()[0].Want()
	return z.consumerImpl.Receive(ctx)
}

// Chan panics, as the official client's zero-queue consumer: its messages
// are asked for by Receive.
func (z *zeroQueueConsumer) Chan() <-chan ConsumerMessage {
	panic("zeroQueueConsumer cannot support Chan method")
}
