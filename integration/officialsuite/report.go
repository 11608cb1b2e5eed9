package main

import (
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// knownFailuresTxt lists the selected official tests that fail against
// brokerstub today, one name a line, followed by the word flaky for a test
// that fails only sometimes (# starts a comment). A run fails on a failure
// not listed here, and says which listed tests, not flaky, pass now.
// knownFailuresPulsargoTxt is the same for -client pulsargo (tests that do
// not compile against pulsargo are counted apart, not listed).
var (
	//go:embed known-failures.txt
	knownFailuresTxt string
	//go:embed known-failures-pulsargo.txt
	knownFailuresPulsargoTxt string
)

// knownFailures parses the known failures of client on pkg (pkgPulsar
// when empty): a test's name maps to whether it is flaky.
func knownFailures(client, pkg string) map[string]bool {
	txt := knownFailuresTxt
	switch {
	case pkg == pkgPulsaradmin:
		txt = knownFailuresPulsaradminTxt
	case client == clientPulsargo:
		txt = knownFailuresPulsargoTxt
	}
	known := map[string]bool{}
	for _, line := range strings.Split(txt, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if f := strings.Fields(line); len(f) > 0 {
			known[f[0]] = len(f) > 1 && f[1] == "flaky"
		}
	}
	return known
}

// counts are the outcomes of a group of tests.
type counts struct{ Pass, Fail, Skip, NotBuilt int }

func (c *counts) add(s Status) {
	switch s {
	case Passed:
		c.Pass++
	case Failed:
		c.Fail++
	case Skipped:
		c.Skip++
	case NotBuilt:
		c.NotBuilt++
	}
}

// summary is what a run found.
type summary struct {
	Total      counts
	ByFeature  map[string]*counts
	ByNeeds    map[string]*counts
	Failures   []Result // every failure
	Unexpected []Result // failures not in known-failures.txt
	NowPassing []string // known failures that passed
}

// summarize counts results; known is knownFailures(client, pkg).
func summarize(results []Result, known map[string]bool) summary {
	s := summary{ByFeature: map[string]*counts{}, ByNeeds: map[string]*counts{}}
	for _, r := range results {
		s.Total.add(r.Status)
		for key, m := range map[string]map[string]*counts{r.Feature(): s.ByFeature, r.Needs: s.ByNeeds} {
			if m[key] == nil {
				m[key] = &counts{}
			}
			m[key].add(r.Status)
		}
		switch {
		case r.Status == Failed:
			s.Failures = append(s.Failures, r)
			if _, ok := known[r.Test]; !ok {
				s.Unexpected = append(s.Unexpected, r)
			}
		case r.Status == Passed:
			if flaky, ok := known[r.Test]; !ok || flaky {
				continue
			}
			s.NowPassing = append(s.NowPassing, r.Test)
		}
	}
	return s
}

// writeTable prints one group's counts, sorted by name.
func writeTable(w io.Writer, title string, groups map[string]*counts, total counts) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\tpassed\tfailed\tskipped\tnot built\t\n", title)
	names := make([]string, 0, len(groups))
	for n := range groups {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		c := groups[n]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t\n", n, c.Pass, c.Fail, c.Skip, c.NotBuilt)
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t\n", total.Pass, total.Fail, total.Skip, total.NotBuilt)
	_ = tw.Flush()
}

// report prints the counts per feature (the census file) and, when more
// than one needs value was selected, per needs; then every failure with
// its reason and log, and which known failures pass now. Its last line is
// "officialsuite: N passed, N failed, N skipped".
func report(w io.Writer, s summary) {
	fmt.Fprintln(w)
	writeTable(w, "feature", s.ByFeature, s.Total)
	if len(s.ByNeeds) > 1 {
		fmt.Fprintln(w)
		writeTable(w, "needs", s.ByNeeds, s.Total)
	}
	if len(s.Failures) > 0 {
		fmt.Fprintf(w, "\nfailures (%d; * = not in known-failures.txt):\n", len(s.Failures))
		for _, r := range s.Failures {
			mark := " "
			if slices.ContainsFunc(s.Unexpected, func(u Result) bool { return u.Test == r.Test }) {
				mark = "*"
			}
			fmt.Fprintf(w, "%s %s (%s, %.1fs): %s\n    log: %s\n", mark, r.Test, r.Feature(), r.Duration.Seconds(), r.Reason, r.Log)
		}
	}
	if len(s.NowPassing) > 0 {
		fmt.Fprintf(w, "\nin known-failures.txt but passing now (remove them): %s\n", strings.Join(s.NowPassing, " "))
	}
	fmt.Fprintf(w, "\nofficialsuite: %d passed, %d failed, %d skipped\n", s.Total.Pass, s.Total.Fail, s.Total.Skip)
}
