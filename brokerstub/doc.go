// Package brokerstub is an in-process Apache Pulsar broker that speaks the
// real Pulsar binary protocol and admin REST API, so that applications — and
// the official Pulsar clients — can run integration tests with no Pulsar
// cluster, no JVM and no Docker. It starts and closes in about 0.1 ms on a
// loopback port:
//
//	func TestOrders(t *testing.T) {
//		b := brokerstub.RunT(t) // closed when the test ends
//		client, _ := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL()})
//		...
//	}
//
// It implements what a Pulsar 4.x standalone serves a client: lookups,
// partitioned topics, producers with access modes and deduplication,
// subscriptions of every type with acks, batch-index acks, redelivery,
// seeks, delayed delivery, message TTL and retention, schemas,
// transactions, topic-list watchers and non-persistent topics; and Pulsar's
// admin REST API and HTTP lookups on WebServiceURL (Options.HTTPAddr),
// reading the same state. A command it does not implement is answered with
// a Pulsar error.
//
// What a Pulsar 4.x broker refuses, it refuses, with Pulsar's error codes
// and texts. A topic's namespace must exist: at start there are the tenants
// "public" and "pulsar" and the namespaces "public/default" and
// "pulsar/system"; create others with the admin API or
// Broker.CreateNamespace, or set Options.AutoCreateNamespaces. Options.Limits
// and the namespace and topic policies limit producers, consumers,
// subscriptions, topics, partitions and unacked messages as Pulsar's do,
// and Options.RateLimits and the rate policies throttle publishing, hold
// dispatch to its rates and refuse subscribes over theirs. As time passes
// on Options.Clock, Options.Lifecycle deletes inactive topics (on by
// default, as Pulsar's brokerDeleteInactiveTopicsEnabled), expires idle
// subscriptions and rolls ledgers over by time and size.
// LoadConfig starts a broker from a Pulsar broker.conf or standalone.conf.
//
// Key_Shared follows PIP-379's draining hashes, so the out-of-order cases of
// PIP-282 and apache/pulsar#10762 cannot happen, and all chunks of a
// chunked message go to one consumer also while ranges move; the package
// keyorder checks these rules on a log of deliveries, and KeyShared
// inspects a subscription's dispatcher. Every change to a cursor, a partial
// batch-index ack too, is persisted at Pulsar's flush points, so it
// survives a crash (apache/pulsar#26498 is not copied).
//
// Each topic's state is owned by one goroutine. Entries are stored exactly as
// producers sent them; with Options.DataDir they live in a crash-safe bbolt
// file. Tests can Restart or Crash the broker, Unload a topic, read a
// cursor's in-memory and persisted state with Cursor, and observe, delay,
// fail or drop any command with Intercept.
//
// The guide is docs/brokerstub.md in the repository; docs/security.md covers
// authentication and authorization, docs/brokerstub-config.md every config
// key, and docs/architecture.md how a SEND becomes a MESSAGE.
package brokerstub
