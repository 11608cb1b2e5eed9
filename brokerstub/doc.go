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
// and consumers in both directions, get-topics-of-namespace (with Pulsar's
// topics hash) and topic-list watchers (PIP-145: WATCH_TOPIC_LIST with
// add/remove updates), and broker deduplication by producer name and
// sequence id when Options.BrokerDeduplicationEnabled is set (dedup.go);
// delayed delivery (deliver_at_time) on Shared and Key_Shared subscriptions,
// on the broker's clock (delayed.go); producer access modes — Exclusive,
// ExclusiveWithFencing, WaitForExclusive — with topic epochs kept in the
// store (access.go); the initial subscription a producer asks for
// (initialsub.go); Pulsar's choice of a Failover subscription's active
// consumer, told to the consumers and served after
// Options.ActiveConsumerFailoverDelay (failover.go); and message TTL and
// retention by Pulsar's rules (ttl.go, retention.go); and transactions
// (txn*.go: the coordinator, produce and acknowledge in a transaction,
// commit and abort). A command it does not implement is answered with a
// Pulsar error.
//
// What a Pulsar 4.x broker refuses, it refuses, with Pulsar's error codes
// and texts. A topic's namespace must exist: at start there are the tenants
// "public" and "pulsar" and the namespaces "public/default" and
// "pulsar/system"; others are created with the admin API or
// Broker.CreateNamespace (Options.AutoCreateNamespaces creates them on first
// use), and until then lookups, producers and consumers on their topics are
// refused (namespace_check.go). Options.Limits and the namespace and topic
// policies limit producers, consumers and subscriptions per topic, topics
// per namespace and partitions (limits.go), and stop dispatch on Shared and
// Key_Shared subscriptions at their max unacked messages (unacked.go).
// As time passes on Options.Clock, Options.Lifecycle deletes inactive
// topics (on by default, as Pulsar's brokerDeleteInactiveTopicsEnabled),
// expires idle subscriptions, forgets deduplication's departed producers
// and rolls ledgers over by time and size; Options.Tenancy refuses forced
// deletion (Pulsar's default) and the tenant and namespace limits
// (docs/brokerstub-limits.md, "Lifecycle").
//
// Each topic's state is owned by one goroutine. Entries are stored exactly as
// producers sent them; with Options.DataDir they live in a crash-safe bbolt
// file. Tests can Restart or Crash the broker, Unload a topic, and observe,
// delay, fail or drop any command with Intercept; its Event carries the
// command type and the producer, consumer, sequence and message ids it
// names, decoded.
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
// delete and cursor resets reach connected clients. Backlog quotas, TTL,
// retention, delayed delivery, deduplication and the limits are enforced;
// other policies are stored and returned. LoadConfig starts a broker from
// a Pulsar broker.conf or standalone.conf.
//
// Every change to a subscription cursor marks it dirty — a partial batch
// ack too (the bug of apache/pulsar#26498 is not copied) — and the cursor is
// written to the store at the next flush: right after an ack when Pulsar's
// mark-delete rate limit (one persist a second) allows it, else by the
// periodic flush once Options.CursorFlushInterval has passed since the last
// write. A seek writes it at once, and so do Restart, Close and Unload. Crash
// loses what was not written yet, as a killed broker does; a flushed partial
// batch ack survives it. Cursor shows the in-memory and the persisted state.
//
// # How a SEND becomes a MESSAGE
//
// A producer's SEND arrives on a connection (conn.go). The connection's
// reader goroutine, (*conn).readLoop, decodes the frame (internal/wire),
// shows it to the Interceptor ((*Broker).intercept, control.go) and passes
// it to (*conn).handle (handle.go), whose switch on the command type calls
// (*conn).handleSend (handle_producer.go). handleSend finds the producer
// and queues a function on the topic's goroutine with (*topic).do
// (topic.go); that goroutine, (*topic).run, owns the topic's state and runs
// it: the entry is stored as received by (*ledger.Ledger).Append
// (internal/ledger, through internal/store), the SEND_RECEIPT from
// (*topic).receipt is queued with (*conn).write, and (*topic).dispatchAll
// (dispatch.go) offers the entry to every subscription.
//
// (*subscription).dispatch (dispatch.go) picks the consumer: for Exclusive,
// Failover and Shared itself (nextCandidate, then pick); for Key_Shared it
// calls the dispatcher, (*keyshared.KeyShared).Dispatch
// (internal/keyshared/route.go), which sweeps the replay queue and then
// reads new entries through ksSource (keyshared.go), routing each with
// (*keyshared.Pass).Route. Either way (*subscription).deliver (dispatch.go)
// builds the MESSAGE (with the batch's ack set and the redelivery count),
// charges the consumer's permits, records the entry as pending at it, and
// hands it to the consumer's connection with (*conn).writeMessage (conn.go),
// which encodes the header and pushes it, with the stored payload, onto the
// connection's outbound queue (outFrame, outq.go). The topic goroutine never
// blocks on a client: the connection's writer goroutine, (*conn).writeLoop,
// takes the queued frames, shows each to the Interceptor and writes them
// with the payloads straight from the ledger's buffers.
//
// The consumer's ACK comes back the same way, to (*conn).handleAck
// (handle_ack.go), then on the topic goroutine to (*subscription).ack, which
// updates the cursor (internal/cursor), and (*subscription).persist
// (handle_consumer.go), which writes it to the store when it is due.
package brokerstub
