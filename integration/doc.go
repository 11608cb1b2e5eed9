// Package integration holds end-to-end tests that prove wire compatibility
// with Apache Pulsar's official Go client (github.com/apache/pulsar-client-go):
// the protocol definition, message ids, producers, consumers and readers
// crossing between this SDK, the official client and brokerstub in both
// directions, and the check that the SDK's own module graph stays lean. It
// has no non-test code.
//
// It is the root of its own module, github.com/pulsargo/sdk/integration, the
// only one that requires the official client, so that users of
// github.com/pulsargo/sdk never get it (or logrus, prometheus, k8s) in their
// module graph. The module also holds cmd/pulsarbench, the side-by-side
// benchmark, officialsuite, which runs the official client's own test
// suite against cmd/brokerstub, and apiparity, a program that uses every
// name of the official API that pulsargo has, built against both clients
// (TestAPIParityProgram; TestAPIParityMissingNames counts what is missing). Run its tests from this directory:
//
//	cd integration && go test -race ./...
package integration
