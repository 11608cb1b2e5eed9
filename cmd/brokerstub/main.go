// Command brokerstub runs brokerstub — an Apache Pulsar broker that speaks
// the real Pulsar binary protocol — as a standalone server, so that any
// Pulsar client (Go, Java, Python, C++, ...) can be tested against it with no
// Pulsar cluster, no JVM and no Docker.
//
// Usage:
//
//	go run github.com/pulsargo/sdk/cmd/brokerstub [flags]
//
// Flags:
//
//	-config FILE                   start from a Pulsar broker.conf or standalone.conf:
//	                               the keys brokerstub honours take effect (ports and
//	                               bindAddress, advertisedAddress, clusterName,
//	                               maxMessageSize, batch-index acks, Key_Shared hashing,
//	                               ledger rollover, cursor flush, auto topic creation,
//	                               keepalive, backlog quota defaults; see
//	                               brokerstub.ParseConfig); keys it does not implement
//	                               are listed in one warning on stderr, keys without an
//	                               observable effect at -log-level debug, and a key in
//	                               no class of docs/brokerstub-config.md is refused.
//	                               Flags given on the command line override the file.
//	-ignore-unknown-config-keys    accept -config keys brokerstub does not know (a typo,
//	                               a key of a newer Pulsar), with a warning
//	-addr host:port                TCP address to listen on (default 127.0.0.1:6650;
//	                               port 0 picks a free port)
//	-http-addr host:port           TCP address of the admin REST API, HTTP lookups
//	                               and /metrics (default 127.0.0.1:8080, Pulsar's
//	                               webServicePort; when -addr is given without
//	                               -http-addr, a free port on -addr's host; port 0
//	                               picks a free port)
//	-tls-addr host:port            TCP address of the TLS binary port (overrides the
//	                               config's brokerServicePortTls; needs its TLS files)
//	-https-addr host:port          TCP address of the admin REST API over TLS (overrides
//	                               the config's webServicePortTls)
//	-advertised-address HOST       host named in service URLs and lookups instead of
//	                               the bound one (default: the bound host)
//	-max-message-size N            largest message in bytes, announced to clients
//	                               (default 5242880, as Pulsar's maxMessageSize)
//	-data-dir DIR                  keep topics and cursors in DIR/brokerstub.db, so
//	                               they survive the process (default "": in memory)
//	-cursor-flush-interval D       how often dirty subscription cursors are persisted
//	                               (default 60s, as Pulsar's
//	                               managedLedgerCursorPositionFlushSeconds)
//	-ledger-rollover N             entries per ledger before a topic rolls over to a
//	                               new one (default 50000)
//	-disable-batch-index-ack       ignore ack_set in acks and never send one
//	                               (Pulsar's acknowledgmentAtBatchIndexLevelEnabled=false)
//	-log-level LEVEL               debug, info, warn or error (default info)
//
// # Output
//
// Once the server accepts connections it writes two lines to standard
// output, then, when it serves TLS ports (brokerServicePortTls,
// webServicePortTls), one line for each, and nothing else ever:
//
//	brokerstub: listening on pulsar://127.0.0.1:6650
//	brokerstub: web service on http://127.0.0.1:8080
//	brokerstub: TLS listening on pulsar+ssl://127.0.0.1:6651
//	brokerstub: TLS web service on https://127.0.0.1:8443
//
// The URL is each line's last space-separated field: the service URL first,
// then the web service URL (admin REST API, HTTP lookups, /metrics). Scripts
// and tests wait for a line starting with "brokerstub: listening on " and
// take the URL from it, then for "brokerstub: web service on "; with port 0
// addresses that is how they learn the ports.
// Logs go to standard error in log/slog's text format.
//
// # Stopping
//
// SIGINT or SIGTERM stops the server gracefully: connections are closed,
// dirty subscription cursors are flushed and the data directory is closed;
// the exit status is 0. A second signal during shutdown kills the process at
// once. SIGKILL loses cursor changes not yet flushed (at most one
// -cursor-flush-interval of acknowledgments), never stored messages.
//
// The exit status is 2 for bad flags and 1 when the server cannot start (for
// instance the address is in use or the data directory is locked by another
// brokerstub).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal, restore the default handling so that a second
	// one kills a shutdown that hangs.
	context.AfterFunc(ctx, stop)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(report(err, os.Stderr))
}

// report writes err to stderr, if it needs saying, and returns the exit
// status for it: 0 for nil or a request for help, 2 for a usage error, 1 for
// anything else.
func report(err error, stderr io.Writer) int {
	var ue usageError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "brokerstub: %v\nRun 'brokerstub -h' for usage.\n", ue.err)
		return 2
	default:
		fmt.Fprintf(stderr, "brokerstub: %s\n", strings.TrimPrefix(err.Error(), "brokerstub: "))
		return 1
	}
}
