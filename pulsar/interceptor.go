package pulsar

// ProducerInterceptor observes, and may change, what a producer sends, as
// the official Go client's interface of the same name.
type ProducerInterceptor interface {
	// BeforeSend runs in Send and SendAsync before the message is queued
	// (after it was routed to a partition); it may modify the message.
	BeforeSend(producer Producer, message *ProducerMessage)
	// OnSendAcknowledgement runs once the broker acknowledged the message
	// (for a chunked message, its last chunk), before Send returns or the
	// SendAsync callback runs. As in the official client it is not called
	// for a send that fails, and for SendAsync it runs on the connection's
	// reader goroutine before the next frame is read, so a message received
	// afterwards from the same connection is ordered after it; it must not
	// block (a Send or Flush in it would wait for its own connection).
	OnSendAcknowledgement(producer Producer, message *ProducerMessage, msgID MessageID)
}

// ProducerInterceptors is a chain of producer interceptors, called in
// order; ProducerOptions.Interceptors takes one. nil (default) is none.
type ProducerInterceptors []ProducerInterceptor

// BeforeSend calls BeforeSend of every interceptor in order.
func (x ProducerInterceptors) BeforeSend(producer Producer, message *ProducerMessage) {
	for _, i := range x {
		i.BeforeSend(producer, message)
	}
}

// OnSendAcknowledgement calls OnSendAcknowledgement of every interceptor in
// order.
func (x ProducerInterceptors) OnSendAcknowledgement(producer Producer, message *ProducerMessage, msgID MessageID) {
	for _, i := range x {
		i.OnSendAcknowledgement(producer, message, msgID)
	}
}

// ConsumerInterceptor observes what a consumer receives and acknowledges,
// as the official Go client's interface of the same name.
type ConsumerInterceptor interface {
	// BeforeConsume runs for every message just before it is put on the
	// consumer's channel (Receive and Chan), on a goroutine of the
	// consumer's own, one message at a time; it may modify the message's
	// properties map. It may call the consumer (Ack, Nack...).
	BeforeConsume(message ConsumerMessage)
	// OnAcknowledge runs after Ack, AckID, AckCumulative or AckIDCumulative
	// accepted an acknowledgment, on the caller's goroutine.
	OnAcknowledge(consumer Consumer, msgID MessageID)
	// OnNegativeAcksSend runs when the consumer asks the broker to
	// redeliver negatively acknowledged messages (their entries, once their
	// nack delay passed), on a goroutine of the consumer's own.
	OnNegativeAcksSend(consumer Consumer, msgIDs []MessageID)
}

// ConsumerInterceptors is a chain of consumer interceptors, called in
// order; ConsumerOptions.Interceptors takes one. nil (default) is none.
type ConsumerInterceptors []ConsumerInterceptor

// BeforeConsume calls BeforeConsume of every interceptor in order.
func (x ConsumerInterceptors) BeforeConsume(message ConsumerMessage) {
	for _, i := range x {
		i.BeforeConsume(message)
	}
}

// OnAcknowledge calls OnAcknowledge of every interceptor in order.
func (x ConsumerInterceptors) OnAcknowledge(consumer Consumer, msgID MessageID) {
	for _, i := range x {
		i.OnAcknowledge(consumer, msgID)
	}
}

// OnNegativeAcksSend calls OnNegativeAcksSend of every interceptor in
// order.
func (x ConsumerInterceptors) OnNegativeAcksSend(consumer Consumer, msgIDs []MessageID) {
	for _, i := range x {
		i.OnNegativeAcksSend(consumer, msgIDs)
	}
}
