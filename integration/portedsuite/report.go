package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// censusFile is the map of the official suite: one row per test with what
// it needs from a broker (the "needs" column, comma-separated features).
const censusFile = "integration/official-suite-census.tsv"

// loadCensus returns each test's needs; a test missing from it (or a
// missing census) counts under "unlisted".
func loadCensus(root string) map[string][]string {
	needs := map[string][]string{}
	data, err := os.ReadFile(filepath.Join(root, censusFile))
	if err != nil {
		return needs
	}
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Split(line, "\t")
		if len(f) >= 3 && f[0] != "" {
			needs[f[0]] = strings.Split(f[2], ",")
		}
	}
	return needs
}

// report prints counts per feature (a test counts under each feature it
// needs), the tests that failed, the tests pruned because they do not
// compile against the SDK, and a closing "N passed, N failed, N skipped".
func report(w io.Writer, s suite) {
	results, pruned, census := s.results, s.pruned, s.census
	type counts struct{ pass, fail, skip, pruned int }
	by := map[string]*counts{}
	get := func(name string) []*counts {
		feats := census[name]
		if len(feats) == 0 {
			feats = []string{"unlisted"}
		}
		var cs []*counts
		for _, f := range feats {
			if by[f] == nil {
				by[f] = &counts{}
			}
			cs = append(cs, by[f])
		}
		return cs
	}
	var total counts
	var failed []string
	for _, r := range results {
		for _, c := range get(r.name) {
			switch r.status {
			case "PASS":
				c.pass++
			case "SKIP":
				c.skip++
			default:
				c.fail++
			}
		}
		switch r.status {
		case "PASS":
			total.pass++
		case "SKIP":
			total.skip++
		default:
			total.fail++
			failed = append(failed, r.name)
		}
	}
	for _, name := range pruned {
		for _, c := range get(name) {
			c.pruned++
		}
	}
	feats := make([]string, 0, len(by))
	for f := range by {
		feats = append(feats, f)
	}
	sort.Strings(feats)
	fmt.Fprintf(w, "\n%-28s %6s %6s %6s %14s\n", "needs", "pass", "fail", "skip", "not compiled")
	for _, f := range feats {
		c := by[f]
		fmt.Fprintf(w, "%-28s %6d %6d %6d %14d\n", f, c.pass, c.fail, c.skip, c.pruned)
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "\nfailed: %s\n", strings.Join(failed, " "))
	}
	fmt.Fprintf(w, "not compiled against pulsargo: %d tests\n", len(pruned))
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", total.pass, total.fail, total.skip)
}
