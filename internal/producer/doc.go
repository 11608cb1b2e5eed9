// Package producer is the engine of one producer on one topic (or one
// partition of a partitioned topic): sequence ids, the queue of messages
// waiting for the broker's receipt, batching (in send order or by key),
// compression, chunking of large messages as slices of the compressed
// payload, the send timeout, reconnection with resend of everything pending,
// the pending-message and memory limits, and statistics.
//
// A chunked message that is not compressed, and a streamed one
// (SendReader), is fed to the connection by its sender's goroutine chunk by
// chunk, each chunk counted against the memory limit from the moment it is
// handed over (read, for a stream) until its receipt (fed.go, stream.go).
// While it is fed the message holds the producer's gate alone (gate.go):
// entries are acknowledged in order, so nothing is queued behind it.
//
// Package pulsar builds its public Producer on it: one Producer per
// partition, plus routing. The engine talks to the broker through a Conn
// (an *conn.Conn in production) obtained from Options.Connect, so that a
// reconnect may land on another broker.
//
//	p, err := producer.New(ctx, producer.Options{Topic: topic, Connect: connect, ...})
//	id, err := p.Send(ctx, &Message{Payload: data})
//
// # Concurrency model: one mutex, not an owner goroutine
//
// The consumer engine (internal/consumer) owns its state on one goroutine
// and takes requests over channels. This engine guards its state with one
// mutex (Producer.mu), deliberately:
//
//   - Its requests start on the callers' goroutines and are answered
//     synchronously: SendAsync gives errors found before the message is
//     queued to the callback before it returns, and a Flush or Close must
//     cover every SendAsync that returned before it. On an owner goroutine
//     each send becomes a request and a reply (1-1.8 us per round trip on
//     the 2-vCPU machine this was measured on, against about 40 ns for an
//     uncontended lock and unlock), or a request without reply that costs an
//     allocation and reports its error later.
//   - The expensive steps already run outside the lock, on the caller's
//     goroutine and in parallel across callers: waiting for room (the
//     permits channel and the memory limit, bounded by the caller's ctx) and
//     compressing a message sent on its own. An owner goroutine would either
//     serialize them or need the same split.
//   - Nothing blocks under mu: Conn.SendPayload only queues the frame for
//     the connection's writer goroutine; timers are Clock.AfterFunc
//     functions that take mu; user callbacks run on the runner goroutine,
//     never under mu. Attaching to a broker (a round trip) takes mu only
//     between its steps and fences stale registrations with a generation
//     number (gen), as the consumer's loop does with its own.
//   - Each transition is one short step (append to a batch, queue an entry,
//     match a receipt, fail expired entries). The consumer is different: a
//     pipeline driven by the connection (frames, reassembly, the delivery
//     queue, flow permits) read through a pull API, with multi-step
//     operations (a seek pauses delivery, drops queued messages and
//     resubscribes) during which events must wait in order; there an owner
//     goroutine removes whole classes of interleavings.
package producer
