package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestCensus(t *testing.T) {
	rows, err := parseCensus(censusTSV)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 323 {
		t.Errorf("census has %d tests, want 323 (one per top-level test of pulsar/*_test.go)", len(rows))
	}
	proto := selectTests(rows, []string{"proto-only"}, nil)
	if len(proto) != 126 {
		t.Errorf("%d proto-only tests, want 126", len(proto))
	}
	inProto := map[string]bool{}
	for _, r := range proto {
		inProto[r.Test] = true
	}
	for name := range knownFailures(clientOfficial, pkgPulsar) {
		if !inProto[name] {
			t.Errorf("known-failures.txt lists %s, which is not a proto-only census test", name)
		}
	}
	if got := selectTests(rows, []string{"all"}, regexp.MustCompile(`^TestReader$`)); len(got) != 1 || got[0].Feature() != "reader" {
		t.Errorf("TestReader: %+v", got)
	}
}

func TestSummarize(t *testing.T) {
	row := func(name string) censusRow {
		return censusRow{Test: name, File: "consumer_test.go", Needs: "proto-only"}
	}
	known := map[string]bool{"TestKnown": false, "TestFlaky": true, "TestFixed": false}
	s := summarize([]Result{
		{censusRow: row("TestOK"), Status: Passed},
		{censusRow: row("TestKnown"), Status: Failed},
		{censusRow: row("TestFlaky"), Status: Passed},
		{censusRow: row("TestFixed"), Status: Passed},
		{censusRow: row("TestNew"), Status: Failed},
		{censusRow: row("TestSkip"), Status: Skipped},
	}, known)
	if s.Total != (counts{3, 2, 1, 0}) || *s.ByFeature["consumer"] != s.Total {
		t.Errorf("counts %+v, by feature %+v", s.Total, s.ByFeature)
	}
	if len(s.Failures) != 2 || len(s.Unexpected) != 1 || s.Unexpected[0].Test != "TestNew" {
		t.Errorf("failures %v, unexpected %v", s.Failures, s.Unexpected)
	}
	if len(s.NowPassing) != 1 || s.NowPassing[0] != "TestFixed" {
		t.Errorf("now passing %v, want only TestFixed (TestFlaky is flaky)", s.NowPassing)
	}
	if flaky, ok := knownFailures(clientOfficial, pkgPulsar)["TestConsumerBatchCumulativeAck"]; !ok || !flaky {
		t.Errorf("known-failures.txt: TestConsumerBatchCumulativeAck should be listed as flaky")
	}
}

func TestClassify(t *testing.T) {
	const timeout = time.Minute
	for _, c := range []struct {
		name, out  string
		exitFailed bool
		want       Status
		reason     string
	}{
		{"pass", "=== RUN   TestA\n--- PASS: TestA (0.01s)\nPASS\n", false, Passed, ""},
		{"a passing test's log is no reason", "    a_test.go:3: received x\n--- PASS: TestA (0.01s)\n", false, Passed, ""},
		{"subtest names do not count", "=== RUN   TestA\n    --- FAIL: TestA/sub (0.00s)\n--- PASS: TestA (0.01s)\n", false, Passed, ""},
		{"testify failure", "=== RUN   TestA\n    a_test.go:80: \n        \tError Trace:\tx\n        \tError:      \tExpected nil\n--- FAIL: TestA (1.00s)\nFAIL\n", true, Failed, "Error:      \tExpected nil"},
		{"t.Error", "    a_test.go:12: got 1\n--- FAIL: TestA (1.00s)\n", true, Failed, "a_test.go:12: got 1"},
		{"timeout", "=== RUN   TestA\npanic: test timed out after 1m0s\n\trunning tests:\n", true, Failed, "timed out after 1m0s"},
		{"race after pass", "WARNING: DATA RACE\n--- PASS: TestA (0.01s)\ntesting.go:1712: race detected during execution of test\n", true, Failed, "WARNING: DATA RACE"},
		{"skip", "    a_test.go:5: needs docker\n--- SKIP: TestA (0.00s)\n", false, Skipped, "a_test.go:5: needs docker"},
		{"missing", "testing: warning: no tests to run\nPASS\n", false, Skipped, "not in the test binary"},
		{"crash", "fatal error: concurrent map writes\n", true, Failed, "no result line"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.exitFailed {
				err = errExit
			}
			got, reason := classify("TestA", c.out, err, timeout)
			if got != c.want || !strings.Contains(reason, c.reason) || (got == Passed && reason != "") {
				t.Errorf("classify = %s, %q; want %s, containing %q", got, reason, c.want, c.reason)
			}
		})
	}
}

func TestPackageTests(t *testing.T) {
	dir := t.TempDir()
	src := `package admin

import "testing"

func TestB(t *testing.T)       {}
func TestA(t *testing.T)       {}
func TestHelperNot(x int)      {}
func Testlower(t *testing.T)   {}
func TestBench(b *testing.B)   {}
func (s *suite) TestM(t *testing.T) {}
`
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a_test.go"), []byte("package admin\nimport \"testing\"\nfunc TestZ(t *testing.T) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := packageTests(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.File+":"+r.Test+":"+r.Needs)
	}
	want := "a_test.go:TestZ:admin-api x_test.go:TestA:admin-api x_test.go:TestB:admin-api"
	if strings.Join(got, " ") != want {
		t.Errorf("packageTests = %v, want %s", got, want)
	}
	rows, err = packageTests(dir, map[string]bool{"TestA": true, "TestB": true}, regexp.MustCompile(`B$`))
	if err != nil || len(rows) != 1 || rows[0].Test != "TestB" || rows[0].Feature() != "x" {
		t.Errorf("packageTests(built, run) = %+v, %v", rows, err)
	}
}

func TestParseConfigPkg(t *testing.T) {
	env := func(string) string { return "" }
	c, err := parseConfig([]string{"-pkg", "pulsaradmin"}, env)
	if err != nil || c.Pkg != pkgPulsaradmin || c.Client != clientOfficial {
		t.Errorf("-pkg pulsaradmin: %+v, %v", c, err)
	}
	if c, err := parseConfig(nil, env); err != nil || c.Pkg != pkgPulsar {
		t.Errorf("default -pkg: %+v, %v", c, err)
	}
	if _, err := parseConfig([]string{"-pkg", "pulsaradmin", "-client", "pulsargo"}, env); err == nil {
		t.Error("-pkg pulsaradmin -client pulsargo was accepted")
	}
	if _, err := parseConfig([]string{"-pkg", "nope"}, env); err == nil {
		t.Error("-pkg nope was accepted")
	}
	for name := range knownFailures(clientOfficial, pkgPulsaradmin) {
		if !strings.HasPrefix(name, "Test") {
			t.Errorf("known-failures-pulsaradmin.txt lists %q", name)
		}
	}
}

// errExit stands for a test binary's non-zero exit.
var errExit = &exitError{}

type exitError struct{}

func (*exitError) Error() string { return "exit status 1" }

// alwaysOn is the slice of the official suite CI runs every time: fast
// proto-only tests that pass against brokerstub (plain produce/consume, a
// reader, a seek, a chunked message).
const alwaysOn = `^(TestProducerConsumer|TestSimpleProducer|TestReader|TestConsumerSeek|TestLargeMessage)$`

// TestOfficialSuiteSlice runs a few of the official client's own tests
// against cmd/brokerstub. The first run builds the official tests with
// -race (about a minute on two cores; later runs hit the build cache).
func TestOfficialSuiteSlice(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the official client's tests")
	}
	if os.Getenv("PULSARGO_OFFICIAL_SUITE") == "1" {
		t.Skip("TestOfficialSuite runs the whole selection")
	}
	// The three slices build and run apart (work dirs and ports of their
	// own): in parallel they take the time of the longest.
	t.Parallel()
	runSuite(t, config{Needs: []string{"proto-only"}, Run: regexp.MustCompile(alwaysOn),
		Timeout: 60 * time.Second, Race: true}, false)
}

// pulsargoSlice is the slice of the official suite CI runs against
// pulsargo's client every time: the tests where pulsargo behaved
// differently from the official client (issue 13: HasNext after SeekByTime,
// a non-durable consumer's initial position, Send flushing its batch, Flush
// running callbacks, no event time, a caller's own MessageID type, seeking
// to a chunked message), and a plain produce/consume.
const pulsargoSlice = `^(TestProducerConsumer|TestReaderWithSeekByTime|TestConsumerNonDurable|TestBatchIndexAck|` +
	`TestConsumerWithoutEventTime|TestReaderOnSpecificMessageWithCustomMessageID|` +
	`TestReaderOnSpecificMessageWithBatching|TestSeekChunkMessages)$`

// TestPulsargoSuiteSlice compiles the official client's own tests against
// pulsargo's pulsar package (only the code under test changes) and runs
// the pulsargoSlice of them against cmd/brokerstub; each must pass.
func TestPulsargoSuiteSlice(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the official client's tests against pulsargo")
	}
	if os.Getenv("PULSARGO_OFFICIAL_SUITE") == "1" {
		t.Skip("TestOfficialSuite runs the whole selection")
	}
	// The three slices build and run apart (work dirs and ports of their
	// own): in parallel they take the time of the longest.
	t.Parallel()
	runSuite(t, config{Client: clientPulsargo, Needs: []string{"all"}, Run: regexp.MustCompile(pulsargoSlice),
		Timeout: 60 * time.Second, Race: true}, false)
}

// pulsaradminSlice is the slice of the official admin client's own tests
// (-pkg pulsaradmin) CI runs every time: the schema resource, a peek of a
// subscription nobody made, and topic creation with its stats.
const pulsaradminSlice = `^(TestSchemas_CreateSchemaBySchemaInfo|TestSchemas_GetAllSchemas|TestPeekMessagesWithProperties|` +
	`TestCreateTopic|TestPartitionState)$`

// TestPulsaradminSuiteSlice runs the pulsaradminSlice of the official
// pulsaradmin/pkg/admin tests against cmd/brokerstub; each must pass.
func TestPulsaradminSuiteSlice(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the official admin client's tests")
	}
	if os.Getenv("PULSARGO_OFFICIAL_SUITE") == "1" {
		t.Skip("TestOfficialSuite runs the whole selection")
	}
	// The three slices build and run apart (work dirs and ports of their
	// own): in parallel they take the time of the longest.
	t.Parallel()
	runSuite(t, config{Pkg: pkgPulsaradmin, Run: regexp.MustCompile(pulsaradminSlice),
		Timeout: 60 * time.Second, Race: true}, false)
}

// TestOfficialSuite runs every proto-only test of the official suite (or
// those OFFICIAL_SUITE_TESTS selects), and fails on a failure that
// known-failures.txt does not list. It takes long, so it runs only when
// asked:
//
//	PULSARGO_OFFICIAL_SUITE=1 go test -timeout 4h -run TestOfficialSuite$ -v ./officialsuite
func TestOfficialSuite(t *testing.T) {
	if os.Getenv("PULSARGO_OFFICIAL_SUITE") != "1" {
		t.Skip("set PULSARGO_OFFICIAL_SUITE=1 (and -timeout 4h) to run the official suite")
	}
	c, err := parseConfig(nil, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	runSuite(t, c, true)
}

// runSuite runs c in a scratch directory that is kept, and logged, when a
// test fails; with allowKnown, failures listed in known-failures.txt do not
// fail t.
func runSuite(t *testing.T, c config, allowKnown bool) {
	work, err := os.MkdirTemp("", "officialsuite-")
	if err != nil {
		t.Fatal(err)
	}
	c.Work = work
	// Leave three minutes of the test binary's -timeout for the tests
	// themselves and the report; in the slice, a build on a machine too
	// loaded to finish before then is a skip that says so, not a timeout
	// that kills the whole package.
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-3*time.Minute))
		defer cancel()
	}
	var log strings.Builder
	s, results, err := suite(ctx, c, &log)
	if errors.Is(err, errBuildTimeout) && !allowKnown {
		_ = os.RemoveAll(work)
		t.Skipf("%v\n%s", err, log.String())
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	report(&log, s)
	bad := s.Failures
	if allowKnown {
		bad = s.Unexpected
	} else {
		for _, r := range results {
			if r.Status == NotBuilt {
				bad = append(bad, r) // a slice test must compile
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d official tests failed against brokerstub (logs kept in %s):\n%s", len(bad), work, log.String())
		return
	}
	t.Log(log.String())
	if len(s.Failures) == 0 {
		_ = os.RemoveAll(work)
	}
}
