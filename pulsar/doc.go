// Package pulsar is a client for Apache Pulsar built around large messages
// and exact seeks. Its API mirrors the official Go client's
// (github.com/apache/pulsar-client-go/pulsar), so code written for that
// client compiles after changing the import path, and it improves where that
// client is weak:
//
//   - a producer chunks large messages (also together with batching) and
//     returns a ChunkMessageID that names the first and last chunk; the
//     chunks are slices of the compressed payload, never copies;
//   - consumers reassemble chunks into one buffer of the message's size,
//     bounded by a count and a byte budget, and nack (not silently ack)
//     what they give up on;
//   - seeks, readers and acks treat a chunk id as the whole message, also
//     after Serialize/Deserialize;
//   - errors work with errors.Is/As and say whether they are retriable;
//     logging takes the official log.Logger interface, with adapters to and
//     from log/slog, and discards by default; there is no global state; a
//     Dialer hook lets tests use brokerstub's in-memory connections.
//
// docs/compatibility.md in the repository lists where it differs from the
// official client on purpose.
//
// A minimal round trip:
//
//	client, err := pulsar.NewClient(pulsar.ClientOptions{URL: "pulsar://localhost:6650"})
//	if err != nil { ... }
//	defer client.Close()
//	producer, _ := client.CreateProducer(pulsar.ProducerOptions{Topic: "orders", EnableChunking: true})
//	id, _ := producer.Send(ctx, &pulsar.ProducerMessage{Payload: big})
//	consumer, _ := client.Subscribe(pulsar.ConsumerOptions{Topic: "orders", SubscriptionName: "s"})
//	msg, _ := consumer.Receive(ctx)
//	_ = consumer.Ack(msg)
package pulsar
