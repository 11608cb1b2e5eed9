// Command officialsuite runs the official Go client's own test suite
// (github.com/apache/pulsar-client-go v0.19.0, package pulsar) against
// cmd/brokerstub: brokerstub's conformance suite. From the integration
// module:
//
//	cd integration && go run ./officialsuite
//
// It copies the official client's source from the module cache (through the
// module proxy if needed; no other network), builds its pulsar package's
// tests with -race and cmd/brokerstub from this checkout, and runs the tests
// that census.tsv (a copy of shared/reference/official-suite-census.tsv)
// says need only the binary protocol, one test per process, each against a
// fresh in-memory brokerstub. The tests hard-code localhost:6650; by default
// the stub listens on a free loopback port instead and the copy's tests are
// rewritten to it, so that a broker already on 6650 (a real Pulsar, another
// stub) is never used by mistake; -addr 127.0.0.1:6650 runs them as they
// are. It prints passed, failed and
// skipped per feature (the census's test file), then each failure with the
// lines that say why and the path of its log and of the stub's log.
//
// Environment (flags override it):
//
//	OFFICIAL_SUITE_TESTS    regexp: run only the selected tests it matches
//	OFFICIAL_SUITE_TIMEOUT  per-test timeout (default 90s)
//	OFFICIAL_SUITE_CLIENT   official (default) or pulsargo
//
// With -client pulsargo the same tests check pulsargo's client instead:
// they are compiled into a copy of pulsargo's pulsar package (the official
// tests are in package pulsar, so only the code under test changes, as for
// a user who changes the import path), after pruning the declarations that
// cannot compile against it (the official client's internals, API
// pulsargo lacks); the tests pruned are counted as "not built". Its known
// failures are in known-failures-pulsargo.txt. For example:
//
//	cd integration && go run ./officialsuite -client pulsargo -needs all
//
// With -pkg pulsaradmin the suite is the official admin client's package
// tests instead (pulsaradmin/pkg/admin: every test, -needs unused), its
// known failures in known-failures-pulsaradmin.txt:
//
//	cd integration && go run ./officialsuite -pkg pulsaradmin
//
// Flags: -addr (where the stub listens; default a free loopback port),
// -needs (census needs values, comma-separated; default proto-only;
// "all" for every test), -work DIR (keep the build and logs there; default a
// temp dir that is kept when a test fails), -race=false (faster build). The
// exit status is 1 when a test fails that known-failures.txt does not list.
//
// The first run builds the official tests (about a minute with a warm
// module cache on two cores); the proto-only set then takes tens of minutes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The clients whose behaviour the official tests check (-client).
const (
	clientOfficial = "official" // the official client itself: the tests check brokerstub
	clientPulsargo = "pulsargo" // pulsargo's client: the tests check it (and the stub)
)

// config is a run's selection and settings.
type config struct {
	Client  string // clientOfficial or clientPulsargo
	Pkg     string // pkgPulsar (default) or pkgPulsaradmin
	Needs   []string
	Run     *regexp.Regexp
	Timeout time.Duration
	Race    bool
	Work    string
	Addr    string // "" for a free loopback port
}

func parseConfig(args []string, getenv func(string) string) (config, error) {
	fs := flag.NewFlagSet("officialsuite", flag.ContinueOnError)
	needs := fs.String("needs", "proto-only", "census needs values to run, comma-separated (\"all\": every test)")
	run := fs.String("run", getenv("OFFICIAL_SUITE_TESTS"), "regexp selecting test names (env OFFICIAL_SUITE_TESTS)")
	timeout := fs.String("timeout", getenv("OFFICIAL_SUITE_TIMEOUT"), "per-test timeout (env OFFICIAL_SUITE_TIMEOUT; default 90s)")
	race := fs.Bool("race", true, "build the official tests with -race, as their CI does")
	work := fs.String("work", "", "directory for the build and the logs (default: a new temp dir)")
	addr := fs.String("addr", "", "host:port for the stub (default: a free loopback port; the tests are rewritten to it)")
	client := fs.String("client", or(getenv("OFFICIAL_SUITE_CLIENT"), clientOfficial),
		"the client the tests run with: official, or pulsargo (the official tests compiled against pulsargo's pulsar package; env OFFICIAL_SUITE_CLIENT)")
	pkg := fs.String("pkg", pkgPulsar,
		"the official package whose tests run: pulsar (selected by the census and -needs) or pulsaradmin (every test of pulsaradmin/pkg/admin; -needs is not used)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if *client != clientOfficial && *client != clientPulsargo {
		return config{}, fmt.Errorf("-client %q: want official or pulsargo", *client)
	}
	if _, ok := pkgDirs[*pkg]; !ok {
		return config{}, fmt.Errorf("-pkg %q: want pulsar or pulsaradmin", *pkg)
	}
	if *pkg == pkgPulsaradmin && *client != clientOfficial {
		return config{}, fmt.Errorf("-pkg pulsaradmin runs only with -client official (its tests are the official admin client's)")
	}
	c := config{Client: *client, Pkg: *pkg, Needs: strings.Split(*needs, ","), Race: *race, Work: *work, Addr: *addr, Timeout: 90 * time.Second}
	if *run != "" {
		re, err := regexp.Compile(*run)
		if err != nil {
			return config{}, fmt.Errorf("OFFICIAL_SUITE_TESTS: %w", err)
		}
		c.Run = re
	}
	if *timeout != "" {
		d, err := time.ParseDuration(*timeout)
		if err != nil || d <= 0 {
			return config{}, fmt.Errorf("OFFICIAL_SUITE_TIMEOUT %q: want a duration such as 90s", *timeout)
		}
		c.Timeout = d
	}
	return c, nil
}

// or returns s, or def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// errBuildTimeout is returned when ctx ends while the official tests build.
var errBuildTimeout = errors.New("building the official tests took too long")

// suite runs the selected official tests and returns the summary; build
// output and progress go to log. When ctx ends, the build stops with
// errBuildTimeout, and no further test starts.
func suite(ctx context.Context, c config, log io.Writer) (summary, []Result, error) {
	if c.Client == "" {
		c.Client = clientOfficial
	}
	if c.Pkg == "" {
		c.Pkg = pkgPulsar
	}
	var tests []censusRow
	if c.Pkg == pkgPulsar {
		rows, err := parseCensus(censusTSV)
		if err != nil {
			return summary{}, nil, err
		}
		tests = selectTests(rows, c.Needs, c.Run)
		if len(tests) == 0 {
			return summary{}, nil, fmt.Errorf("no census test selected (needs %v, run %v)", c.Needs, c.Run)
		}
	}
	addr, httpAddr := c.Addr, ""
	var err error
	if addr == "" {
		if addr, err = freeAddr(); err != nil {
			return summary{}, nil, err
		}
		if httpAddr, err = freeAddr(addr); err != nil {
			return summary{}, nil, err
		}
	} else {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return summary{}, nil, fmt.Errorf("-addr: %w", err)
		}
		// The official ports stay the official pair; any other port's web
		// service takes the next one.
		httpPort := officialHTTPPort
		if port != officialPort {
			n, _ := strconv.Atoi(port)
			httpPort = strconv.Itoa(n + 1)
		}
		httpAddr = net.JoinHostPort(host, httpPort)
	}
	if c.Pkg == pkgPulsar {
		fmt.Fprintf(log, "officialsuite: %d tests (needs %s), stub on %s, work dir %s\n",
			len(tests), strings.Join(c.Needs, ","), addr, c.Work)
	} else {
		fmt.Fprintf(log, "officialsuite: the tests of %s, stub on %s, work dir %s\n", pkgDirs[c.Pkg], addr, c.Work)
	}
	start := time.Now()
	p, err := prepare(ctx, c.Work, addr, httpAddr, c.Race, c.Client, c.Pkg, log)
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v): %v", errBuildTimeout, time.Since(start).Round(time.Second), err)
		}
		return summary{}, nil, err
	}
	fmt.Fprintf(log, "officialsuite: built in %v\n", time.Since(start).Round(time.Second))
	if c.Pkg == pkgPulsaradmin {
		if tests, err = packageTests(p.PkgDir, p.Built, c.Run); err != nil {
			return summary{}, nil, err
		}
		if len(tests) == 0 {
			return summary{}, nil, fmt.Errorf("no test of %s selected (run %v)", pkgDirs[c.Pkg], c.Run)
		}
		fmt.Fprintf(log, "officialsuite: %d tests of %s\n", len(tests), pkgDirs[c.Pkg])
	}
	results, err := runAll(ctx, p, tests, c.Timeout, func(r Result) {
		fmt.Fprintf(log, "%-4s %-55s %6.1fs %s\n", r.Status, r.Test, r.Duration.Seconds(), r.Reason)
	})
	if err != nil {
		return summary{}, nil, err
	}
	return summarize(results, knownFailures(c.Client, c.Pkg)), results, nil
}

func main() {
	c, err := parseConfig(os.Args[1:], os.Getenv)
	if err == flag.ErrHelp {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "officialsuite:", err)
		os.Exit(2)
	}
	tempWork := c.Work == ""
	if tempWork {
		if c.Work, err = os.MkdirTemp("", "officialsuite-"); err != nil {
			fmt.Fprintln(os.Stderr, "officialsuite:", err)
			os.Exit(1)
		}
	} else if err := os.MkdirAll(c.Work, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "officialsuite:", err)
		os.Exit(1)
	}
	s, _, err := suite(context.Background(), c, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "officialsuite:", err)
		os.Exit(1)
	}
	report(os.Stdout, s)
	if tempWork && len(s.Failures) == 0 {
		_ = os.RemoveAll(c.Work)
	}
	if len(s.Unexpected) > 0 {
		os.Exit(1)
	}
}
