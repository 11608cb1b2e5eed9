// Package brokerstub is an in-process Apache Pulsar broker that speaks the
// real Pulsar binary protocol, so that applications — and the official Pulsar
// clients — can run integration tests with no Pulsar cluster, no JVM and no
// Docker. It starts in milliseconds on a loopback port:
//
//	func TestOrders(t *testing.T) {
//		b := brokerstub.RunT(t)
//		client, _ := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL()})
//		...
//	}
//
// What it implements: connect, ping/pong, lookup (always to itself),
// partitioned-topic metadata, producers and sends with receipts,
// subscriptions of every type (Exclusive, Failover, Shared, Key_Shared;
// durable and non-durable, initial position, start message id), flow
// control, delivery with redelivery counts and batch ack sets, individual,
// cumulative and batch-index acks (with receipts when asked), redelivery,
// seek by id and by time, get-last-message-id, unsubscribe, closing producers
// and consumers in both directions, and get-topics-of-namespace. Commands it
// does not implement (transactions, topic-list watchers) are answered with a
// Pulsar error.
//
// Each topic's state is owned by one goroutine. Entries are stored exactly as
// producers sent them; with Options.DataDir they live in a crash-safe bbolt
// file. Tests can Restart or Crash the broker, Unload a topic, and observe,
// delay, fail or drop any command with Intercept.
//
// Key_Shared follows PIP-379's draining hashes: a key is pending at one
// consumer at a time, hashes still pending at a consumer that lost their
// range drain before the new owner gets them, and redeliveries go before
// newer messages of their key, so the out-of-order cases of PIP-282 and
// apache/pulsar#10762 cannot happen. Unlike any official broker, all chunks
// of a chunked message go to the consumer that got its first chunk, also
// while ranges move. The package keyorder checks these rules on a log of
// deliveries; KeyShared inspects a subscription's dispatcher.
//
// The admin REST API (Pulsar's v2 paths, JSON and status codes) and HTTP
// lookups are served on WebServiceURL (Options.HTTPAddr): tenants,
// namespaces and their policies, partitioned and non-partitioned topics,
// stats, subscriptions and cursors, messages by position, unload and
// terminate, brokers and /metrics. It reads the same state as the binary
// protocol: a partitioned topic created over HTTP is partitioned for
// clients, stats come from the topic goroutines, and unload, terminate,
// delete and cursor resets reach connected clients. Backlog quotas are
// enforced; other policies are stored and returned. LoadConfig starts a
// broker from a Pulsar broker.conf or standalone.conf.
//
// Subscription cursors persist batch-index acks on every change (the bug of
// apache/pulsar#26498 is not copied): a partial batch ack survives Crash
// once flushed. Cursor shows the in-memory and the persisted state.
package brokerstub
