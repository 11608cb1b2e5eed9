// Package integration holds end-to-end tests that prove wire compatibility
// with Apache Pulsar's official Go client (github.com/apache/pulsar-client-go):
// the protocol definition, message ids, and (as they land) producers,
// consumers and readers crossing between this SDK, the official client and
// brokerstub in both directions. It has no non-test code.
package integration
