// Package keyorder checks Apache Pulsar's Key_Shared ordering guarantee on
// a log of what consumers received and acknowledged. It depends on no
// client and no broker: feed it the events of the consumers of one
// subscription on one topic partition — from brokerstub, a real Pulsar
// cluster, any client — and it reports the first violation of
//
//	(a) first deliveries of each key strictly increase: no message of a key
//	    reaches any consumer for the first time before an older message of
//	    that key did;
//	(b) after a consumer leaves, the messages of a key it held
//	    unacknowledged come before any newer message of that key (to whichever
//	    consumer gets them next);
//	(c) a key is never pending (received, not yet acknowledged or given
//	    back) at two consumers at once.
//
// Duplicates are allowed: a message received again is not a first delivery.
// A message sent with a delivery time (Event.Delayed) is outside rule (a),
// as Pulsar delivers it when due and holds nothing behind it.
//
// Recording rules, so that an application's own log is judged fairly:
//   - Key must be the key the broker routes by: the message's ordering key
//     when it has one, else its partition key. With batching, producers must
//     use key-based batching, as Pulsar requires for Key_Shared (a default
//     batch is routed by its first message's key).
//   - Record Received when the application gets the message, Acked when it
//     acknowledges it, Released when it gives it back without
//     acknowledging (negative ack, ack timeout, redeliver-unacknowledged),
//     and Left before closing the consumer (or when its connection is lost):
//     from then on it holds nothing. Recording acks and departures no later
//     than they happen, and receipts no earlier, can only hide a violation,
//     never invent one.
//   - Consumer names one consumer instance; a consumer that reconnects is a
//     new instance and should get a new name (reusing a name after Left is
//     accepted and starts afresh).
//   - For a chunked message use the id of its last chunk (the id clients
//     give the whole message).
//
// A Checker records and checks events as they come and is safe for
// concurrent use by the consumers' goroutines; Check judges a finished log.
package keyorder
