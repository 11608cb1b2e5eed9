package pulsar

import (
	"context"
	"fmt"
)

// TypedProducer sends values of type T with its producer's Schema: the
// typed form of ProducerMessage.Value (the official client has none). Its
// Producer is an ordinary one, for everything else.
type TypedProducer[T any] struct {
	// Producer is the underlying producer.
	Producer
}

// NewTypedProducer creates a producer whose messages are values of T
// encoded with opts.Schema, which is required.
func NewTypedProducer[T any](c Client, opts ProducerOptions) (*TypedProducer[T], error) {
	if opts.Schema == nil {
		return nil, fmt.Errorf("%w: a typed producer needs a Schema", ErrInvalidOptions)
	}
	p, err := c.CreateProducer(opts)
	if err != nil {
		return nil, err
	}
	return &TypedProducer[T]{Producer: p}, nil
}

// SendValue sends v, with the other fields of msg (key, properties, ...)
// when msg is not nil; msg.Value, Payload and Schema are ignored.
func (p *TypedProducer[T]) SendValue(ctx context.Context, v T, msg *ProducerMessage) (MessageID, error) {
	return p.Send(ctx, typedMessage(v, msg))
}

// SendValueAsync is SendValue without waiting: callback gets the outcome.
func (p *TypedProducer[T]) SendValueAsync(ctx context.Context, v T, msg *ProducerMessage, callback func(MessageID, *ProducerMessage, error)) {
	p.SendAsync(ctx, typedMessage(v, msg), callback)
}

func typedMessage[T any](v T, msg *ProducerMessage) *ProducerMessage {
	var m ProducerMessage
	if msg != nil {
		m = *msg
	}
	m.Value, m.Payload, m.Schema = v, nil, nil
	return &m
}

// TypedConsumer receives messages and decodes them into values of T with
// the schema each was written with (Message.GetSchemaValue). Its Consumer
// is an ordinary one, for acknowledgments and everything else.
type TypedConsumer[T any] struct {
	// Consumer is the underlying consumer.
	Consumer
}

// NewTypedConsumer subscribes as Client.Subscribe does; opts.Schema is
// optional (messages with a schema version decode with the writer's).
func NewTypedConsumer[T any](c Client, opts ConsumerOptions) (*TypedConsumer[T], error) {
	cs, err := c.Subscribe(opts)
	if err != nil {
		return nil, err
	}
	return &TypedConsumer[T]{Consumer: cs}, nil
}

// ReceiveValue returns the next message and its value. A message whose
// payload does not decode is returned with the zero T and a *SchemaError,
// so that it can be acknowledged or negatively acknowledged.
func (c *TypedConsumer[T]) ReceiveValue(ctx context.Context) (T, Message, error) {
	var v T
	m, err := c.Receive(ctx)
	if err != nil {
		return v, nil, err
	}
	if err := m.GetSchemaValue(&v); err != nil {
		var zero T
		return zero, m, err
	}
	return v, m, nil
}
