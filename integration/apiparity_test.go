package integration

import (
	"bufio"
	"fmt"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/integration/apiparity/apinames"
)

// The members that count as API names besides the package-level ones.
// countedStructs reproduces the total of 338 (the package-level
// names of package pulsar and the fields of these option structs); the
// wider count adds the methods of the main interfaces and the fields of the
// other option and policy structs.
var (
	countedStructs = map[string]bool{"ClientOptions": true, "ProducerOptions": true, "ConsumerOptions": true,
		"ReaderOptions": true, "AckGroupingOptions": true}
	widerMembers = map[string]bool{"Client": true, "Producer": true, "Consumer": true, "Reader": true,
		"Message": true, "MessageID": true, "TableView": true, "TableViewOptions": true, "DLQPolicy": true,
		"KeySharedPolicy": true, "ProducerMessage": true}
)

// loadPair type-checks the official and pulsargo packages of rel ("pulsar",
// "pulsar/log", ...).
func loadPair(t *testing.T, rel string) (official, sdk *types.Package) {
	t.Helper()
	o, s := apinames.OfficialModule+"/"+rel, apinames.SDKModule+"/"+rel
	pkgs, err := apinames.Load(".", o, s)
	if err != nil {
		t.Fatal(err)
	}
	return pkgs[o], pkgs[s]
}

// missingNames returns the names of official's API (with the members
// selects) that sdk lacks, and the number of names.
func missingNames(official, sdk *types.Package, members func(string) bool) (missing []string, total int) {
	names := apinames.Names(official, members)
	for _, n := range names {
		if !apinames.Has(sdk, n) {
			missing = append(missing, n)
		}
	}
	return missing, len(names)
}

// TestAPIParityMissingNames lists the names of the official pulsar
// package's API that pulsargo's lacks and prints the count, the figure of
// issue 17 ("N of 338 missing": the package-level names and the fields of
// the client, producer, consumer, reader and ack-grouping options), and the
// wider count that adds the main interfaces' methods and the other option
// structs' fields:
//
//	cd integration && go test -run TestAPIParityMissingNames -v .
func TestAPIParityMissingNames(t *testing.T) {
	// Independent of other tests (its own stub, or go commands): it runs
	// beside them, so the integration module uses both cores.
	t.Parallel()
	official, sdk := loadPair(t, "pulsar")
	counted := func(n string) bool { return countedStructs[n] }
	wider := func(n string) bool { return countedStructs[n] || widerMembers[n] }
	missing, total := missingNames(official, sdk, counted)
	wideMissing, wideTotal := missingNames(official, sdk, wider)
	t.Logf("pulsargo lacks these %d of the official package's %d API names (package-level names, option and interface members):\n%s",
		len(wideMissing), wideTotal, strings.Join(wideMissing, "\n"))
	fmt.Printf("apiparity: %d of %d missing (package-level names and option fields); %d of %d with the main interfaces' methods\n",
		len(missing), total, len(wideMissing), wideTotal)
	if total != 338 {
		t.Errorf("the official package has %d API names by the issue's count, want 338 (v0.19.0): the counting is off", total)
	}
	for _, rel := range apinames.Packages[1:] {
		o, s := loadPair(t, rel)
		m, n := missingNames(o, s, func(string) bool { return true })
		fmt.Printf("apiparity: %s: %d of %d missing %v\n", rel, len(m), n, m)
	}
}

// TestAPIParityProgram checks the apiparity program: its two copies differ
// only in the import paths (official module <-> pulsargo), they are what
// names.txt generates, and both build: pulsargo has every listed name with
// the official type. It logs the names pulsargo has that names.txt does not
// list yet.
func TestAPIParityProgram(t *testing.T) {
	// Independent of other tests (its own stub, or go commands): it runs
	// beside them, so the integration module uses both cores.
	t.Parallel()
	files, err := filepath.Glob("apiparity/official/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no apiparity/official/*.go: %v", err)
	}
	differ := 0
	for _, path := range files {
		name := filepath.Base(path)
		official, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sdk, err := os.ReadFile(filepath.Join("apiparity/pulsargo", name))
		if err != nil {
			t.Fatal(err)
		}
		ol, sl := strings.Split(string(official), "\n"), strings.Split(string(sdk), "\n")
		if len(ol) != len(sl) {
			t.Fatalf("the copies of %s have %d and %d lines", name, len(ol), len(sl))
		}
		for i := range ol {
			if ol[i] == sl[i] {
				continue
			}
			differ++
			o, okO := importPath(ol[i])
			s, okS := importPath(sl[i])
			rest, okR := strings.CutPrefix(o, apinames.OfficialModule+"/")
			if !okO || !okS || !okR || s != apinames.SDKModule+"/"+rest {
				t.Errorf("%s line %d differs beyond its import path:\n  %s\n  %s", name, i+1, ol[i], sl[i])
			}
		}
	}
	if differ == 0 {
		t.Error("the copies do not differ: the pulsargo copy does not import pulsargo")
	}
	for _, args := range [][]string{
		{"run", "./apiparity/gen", "-check"},
		{"build", "./apiparity/official", "./apiparity/pulsargo"},
	} {
		args = slices.Insert(args, 1, buildFlags()...) // the packages this test binary was built with, from the cache
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	listed := map[string]bool{}
	f, err := os.Open("apiparity/names.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if fs := strings.Fields(line); len(fs) > 0 {
			listed[fs[0]] = true
		}
	}
	var unlisted []string
	for _, rel := range apinames.Packages {
		o, s := loadPair(t, rel)
		for _, n := range apinames.Names(o, func(string) bool { return true }) {
			full := n
			if rel != "pulsar" {
				full = rel + "." + n
			}
			if apinames.Has(s, n) && !listed[full] {
				unlisted = append(unlisted, full)
			}
		}
	}
	if len(unlisted) > 0 {
		t.Logf("pulsargo has %d names of the official API that apiparity/names.txt does not list yet: %v", len(unlisted), unlisted)
	}
}

// importPath returns the path of an import spec line such as `\t"a/b"`.
func importPath(line string) (string, bool) {
	s := strings.TrimSpace(line)
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	return s[1 : len(s)-1], true
}
