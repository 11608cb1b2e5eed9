package main

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// censusTSV is a copy of shared/reference/official-suite-census.tsv: one row
// per top-level test of the official client's pulsar/*_test.go at v0.19.0,
// with what it needs from a broker.
//
//go:embed census.tsv
var censusTSV string

// censusRow is one test of the census.
type censusRow struct {
	Test  string // top-level test function
	File  string // its _test.go file
	Needs string // comma-separated needs, e.g. "proto-only" or "tls,authz"
	Notes string
}

// Feature is the part of the client the test covers, named after its file:
// consumer_test.go is "consumer", message_chunking_test.go "message_chunking".
func (r censusRow) Feature() string { return strings.TrimSuffix(r.File, "_test.go") }

// parseCensus reads the census table; its first line is the header.
func parseCensus(tsv string) ([]censusRow, error) {
	var rows []censusRow
	for i, line := range strings.Split(strings.TrimRight(tsv, "\n"), "\n") {
		if i == 0 {
			if !strings.HasPrefix(line, "test\tfile\tneeds\t") {
				return nil, fmt.Errorf("census: unexpected header %q", line)
			}
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 3 || !strings.HasPrefix(f[0], "Test") {
			return nil, fmt.Errorf("census line %d: %q", i+1, line)
		}
		r := censusRow{Test: f[0], File: f[1], Needs: f[2]}
		if len(f) > 4 {
			r.Notes = f[4]
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// selectTests returns the rows whose needs field is one of needs ("all"
// selects every row) and whose name matches run (all when run is nil).
func selectTests(rows []censusRow, needs []string, run *regexp.Regexp) []censusRow {
	var out []censusRow
	for _, r := range rows {
		if !slices.Contains(needs, "all") && !slices.Contains(needs, r.Needs) {
			continue
		}
		if run != nil && !run.MatchString(r.Test) {
			continue
		}
		out = append(out, r)
	}
	return out
}
