package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"strings"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/wire"
)

// listeningPrefix starts the first line written to stdout once the server
// accepts connections; the service URL follows it.
const listeningPrefix = "brokerstub: listening on "

// webServicePrefix starts the second line: the admin REST API's URL follows.
const webServicePrefix = "brokerstub: web service on "

// tlsListeningPrefix and tlsWebServicePrefix start the third and fourth
// lines, written only when the TLS ports are served (brokerServicePortTls,
// webServicePortTls): the TLS service URL and the HTTPS web service URL.
const (
	tlsListeningPrefix  = "brokerstub: TLS listening on "
	tlsWebServicePrefix = "brokerstub: TLS web service on "
)

// Flag defaults.
const (
	defaultAddr                = "127.0.0.1:6650"
	defaultHTTPAddr            = "127.0.0.1:8080"           // Pulsar's webServicePort
	defaultMaxMessageSize      = wire.DefaultMaxMessageSize // 5 MiB
	defaultCursorFlushInterval = 60 * time.Second
	defaultLedgerRollover      = 50_000
	// maxMessageSizeLimit keeps max_message_size plus the frame padding
	// within the int32 that CommandConnected and the clients use.
	maxMessageSizeLimit = math.MaxInt32 - wire.FramePadding
)

// errHelp is returned by run when -h or -help was given; usage was printed.
var errHelp = flag.ErrHelp

// usageError is a bad command line; main exits with status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// config is a parsed command line.
type config struct {
	opts     brokerstub.Options // without Logger
	logLevel slog.Level
	// file is what -config read (its keys without effect are logged once
	// the logger exists); configPath is "" without -config.
	file       brokerstub.Config
	configPath string
}

// parseFlags parses the command line (without the program name). It prints
// usage to stderr only for -h/-help, and then returns errHelp; every other
// problem is a usageError, left for the caller to print.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("brokerstub", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		cfg           config
		logLevel      string
		fl            brokerstub.Options // the flags' values
		ignoreUnknown bool
	)
	fs.StringVar(&cfg.configPath, "config", "",
		"Pulsar broker.conf or standalone.conf `file` to start from; flags given override it")
	fs.BoolVar(&ignoreUnknown, "ignore-unknown-config-keys", false,
		"accept -config keys that are in no Pulsar standalone.conf or broker.conf known to brokerstub (a typo, a newer key), with a warning")
	fs.StringVar(&fl.Addr, "addr", defaultAddr,
		"TCP `host:port` to listen on (port 0: a free port; empty: no plain binary port, as brokerServicePort=)")
	fs.StringVar(&fl.HTTPAddr, "http-addr", defaultHTTPAddr,
		"TCP `host:port` of the admin REST API, HTTP lookups and /metrics (port 0: a free port; empty: no plain HTTP port, as webServicePort=)")
	fs.StringVar(&fl.TLSAddr, "tls-addr", "",
		"TCP `host:port` of the TLS binary port (brokerServicePortTls; needs the config's TLS files)")
	fs.StringVar(&fl.WebServiceTLSAddr, "https-addr", "",
		"TCP `host:port` of the admin REST API over TLS (webServicePortTls; needs the config's TLS files)")
	fs.StringVar(&fl.AdvertisedAddress, "advertised-address", "",
		"`host` named in service URLs and lookups instead of the bound host (Pulsar's advertisedAddress)")
	fs.IntVar(&fl.MaxMessageSize, "max-message-size", defaultMaxMessageSize,
		"largest message (metadata + payload) in `bytes`, announced to clients")
	fs.StringVar(&fl.DataDir, "data-dir", "",
		"`directory` that keeps topics and cursors across processes (default: in memory)")
	fs.DurationVar(&fl.CursorFlushInterval, "cursor-flush-interval", defaultCursorFlushInterval,
		"how often dirty subscription cursors are persisted (Pulsar's managedLedgerCursorPositionFlushSeconds)")
	fs.IntVar(&fl.LedgerRolloverEntries, "ledger-rollover", defaultLedgerRollover,
		"`entries` per ledger before a topic starts a new one")
	fs.BoolVar(&fl.DisableBatchIndexAck, "disable-batch-index-ack", false,
		"ignore ack_set in acks and never send one (acknowledgmentAtBatchIndexLevelEnabled=false)")
	fs.BoolVar(&fl.Profiling, "pprof", false,
		"serve Go's profiles under /debug/pprof/ on the HTTP port (super-user only with authorization on)")
	fs.BoolVar(&fl.Console, "console", true,
		"serve the web console at /console on the HTTP port (-console=false: not served)")
	fs.BoolVar(&fl.AutoCreateNamespaces, "auto-create-namespaces", false,
		"create a missing tenant and namespace on first use (Pulsar refuses them; default: create them with the admin API)")
	fs.StringVar(&logLevel, "log-level", "info", "log `level`: debug, info, warn or error")

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fmt.Fprintf(stderr, "Usage: brokerstub [flags]\n\n"+
				"Runs a Pulsar-protocol broker. Once it accepts connections it prints\n"+
				"  %spulsar://HOST:PORT\n  %shttp://HOST:PORT\n"+
				"on stdout; logs go to stderr. SIGINT/SIGTERM stop it gracefully.\n\nFlags:\n", listeningPrefix, webServicePrefix)
			fs.PrintDefaults()
			return config{}, errHelp
		}
		return config{}, usageError{err}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if cfg.configPath != "" {
		f, err := os.Open(cfg.configPath)
		if err != nil {
			return config{}, usagef("-config: %v", err)
		}
		cfg.file, err = brokerstub.ParseConfigWith(f, brokerstub.ConfigOptions{IgnoreUnknownKeys: ignoreUnknown})
		_ = f.Close()
		if err != nil {
			return config{}, usagef("-config %s: %w", cfg.configPath, err)
		}
		cfg.opts = cfg.file.Options
	}
	o := &cfg.opts
	// A flag applies when given, or when the file did not set its key.
	pick := func(name string, fileSet bool) bool { return set[name] || !fileSet }
	if pick("addr", o.Addr != "" || o.DisableBrokerServicePort) {
		o.Addr = fl.Addr
		o.DisableBrokerServicePort = fl.Addr == ""
	}
	if pick("http-addr", o.HTTPAddr != "" || o.DisableWebServicePort) {
		o.HTTPAddr = fl.HTTPAddr
		o.DisableWebServicePort = fl.HTTPAddr == ""
		// A server placed with -addr but no -http-addr gets a free web
		// port on the same host, so that servers started by tests and
		// scripts (-addr host:0, or a restart on a known port) never
		// contend for 8080; the second stdout line says where it is.
		if host, _, err := net.SplitHostPort(o.Addr); err == nil && set["addr"] && !set["http-addr"] {
			o.HTTPAddr = net.JoinHostPort(host, "0")
		}
	}
	if set["tls-addr"] {
		o.TLSAddr = fl.TLSAddr
	}
	if set["https-addr"] {
		o.WebServiceTLSAddr = fl.WebServiceTLSAddr
	}
	if (o.TLSAddr != "" || o.WebServiceTLSAddr != "") && o.TLS == nil {
		return config{}, usagef("-tls-addr and -https-addr need a -config with tlsCertificateFilePath and tlsKeyFilePath")
	}
	if pick("advertised-address", o.AdvertisedAddress != "") {
		o.AdvertisedAddress = fl.AdvertisedAddress
	}
	if pick("max-message-size", o.MaxMessageSize != 0) {
		o.MaxMessageSize = fl.MaxMessageSize
	}
	if pick("cursor-flush-interval", o.CursorFlushInterval != 0) {
		o.CursorFlushInterval = fl.CursorFlushInterval
	}
	if pick("ledger-rollover", o.LedgerRolloverEntries != 0) {
		o.LedgerRolloverEntries = fl.LedgerRolloverEntries
	}
	if set["disable-batch-index-ack"] || cfg.configPath == "" {
		o.DisableBatchIndexAck = fl.DisableBatchIndexAck
	}
	o.DataDir = fl.DataDir
	o.Profiling = fl.Profiling // no config key: Pulsar's JVM has no pprof
	o.AutoCreateNamespaces = fl.AutoCreateNamespaces
	o.Console = fl.Console // no config key: Pulsar has no console
	if fs.NArg() > 0 {
		return config{}, usagef("unexpected argument %q (all options are flags)", fs.Arg(0))
	}
	if _, _, err := net.SplitHostPort(o.Addr); err != nil && !o.DisableBrokerServicePort {
		return config{}, usagef("invalid -addr %q: want host:port, or empty for none (%v)", o.Addr, err)
	}
	if _, _, err := net.SplitHostPort(o.HTTPAddr); err != nil && !o.DisableWebServicePort {
		return config{}, usagef("invalid -http-addr %q: want host:port, or empty for none (%v)", o.HTTPAddr, err)
	}
	if o.DisableBrokerServicePort && (o.TLS == nil || o.TLSAddr == "") {
		return config{}, usagef("no binary port: -addr (brokerServicePort) is empty and no -tls-addr (brokerServicePortTls) is set")
	}
	if o.MaxMessageSize < 1 || o.MaxMessageSize > maxMessageSizeLimit {
		return config{}, usagef("invalid -max-message-size %d: want 1 to %d bytes", o.MaxMessageSize, maxMessageSizeLimit)
	}
	if o.CursorFlushInterval <= 0 {
		return config{}, usagef("invalid -cursor-flush-interval %v: want a positive duration such as 60s", o.CursorFlushInterval)
	}
	if o.LedgerRolloverEntries < 1 {
		return config{}, usagef("invalid -ledger-rollover %d: want at least 1 entry", o.LedgerRolloverEntries)
	}
	switch strings.ToLower(logLevel) {
	case "debug":
		cfg.logLevel = slog.LevelDebug
	case "info":
		cfg.logLevel = slog.LevelInfo
	case "warn":
		cfg.logLevel = slog.LevelWarn
	case "error":
		cfg.logLevel = slog.LevelError
	default:
		return config{}, usagef("invalid -log-level %q: want debug, info, warn or error", logLevel)
	}
	return cfg, nil
}

// run parses args, starts the broker, prints the two listening lines on stdout,
// serves until ctx ends and then closes the broker gracefully (flushing
// cursors). Logs go to stderr. It returns errHelp for -h, a usageError for a
// bad command line, and nil after a clean stop.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.logLevel}))
	if cfg.configPath != "" {
		cfg.file.Warn(log, cfg.configPath)
	}
	opts := cfg.opts
	opts.Logger = log
	b, err := brokerstub.Start(opts)
	if err != nil {
		return err
	}
	dataDir := opts.DataDir
	if dataDir == "" {
		dataDir = "(in memory)"
	}
	log.Info("brokerstub started", "url", b.URL(), "web_service_url", b.WebServiceURL(), "data_dir", dataDir,
		"max_message_size", opts.MaxMessageSize, "cursor_flush_interval", opts.CursorFlushInterval,
		"ledger_rollover", opts.LedgerRolloverEntries, "batch_index_ack", !opts.DisableBatchIndexAck)
	if _, err := fmt.Fprintf(stdout, "%s%s\n%s%s\n", listeningPrefix, b.URL(), webServicePrefix, b.WebServiceURL()); err != nil {
		_ = b.Close()
		return fmt.Errorf("write listening line: %w", err)
	}
	if u := b.TLSURL(); u != "" && opts.TLSAddr != "" {
		fmt.Fprintf(stdout, "%s%s\n", tlsListeningPrefix, u)
	}
	if u := b.WebServiceTLSURL(); u != "" {
		fmt.Fprintf(stdout, "%s%s\n", tlsWebServicePrefix, u)
	}

	<-ctx.Done()
	log.Info("shutting down", "cause", context.Cause(ctx))
	if err := b.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	log.Info("stopped")
	return nil
}
