package main

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// With -pkg pulsaradmin the suite is the official admin client's own
// package tests (pulsaradmin/pkg/admin of the same module), which drive the
// admin REST API, and for some tests the binary protocol, of a standalone
// Pulsar on localhost:8080 and :6650. The census covers only the pulsar
// package, so the tests are every top-level Test function of that package's
// _test.go files that the built test binary holds; each one's "needs" is
// "admin-api" and its feature is its file's name. They run only with the
// official client (the package is the official admin client itself).

// The packages whose tests the suite can run (-pkg).
const (
	pkgPulsar      = "pulsar"      // the official client's pulsar package, selected by the census
	pkgPulsaradmin = "pulsaradmin" // the official admin client's pulsaradmin/pkg/admin package
)

// pkgDirs are the packages' directories in the official module.
var pkgDirs = map[string]string{pkgPulsar: "pulsar", pkgPulsaradmin: "pulsaradmin/pkg/admin"}

// adminNeeds is the census-style needs value of every pulsaradmin test.
const adminNeeds = "admin-api"

// knownFailuresPulsaradminTxt lists the pulsaradmin/pkg/admin tests that
// fail against brokerstub today, in known-failures.txt's format.
//
//go:embed known-failures-pulsaradmin.txt
var knownFailuresPulsaradminTxt string

// topTest matches a top-level test function's name.
var topTest = regexp.MustCompile(`^Test[A-Z_0-9]`)

// packageTests returns a row for each top-level test function of the
// _test.go files in dir that built holds (all of them when built is nil)
// and run matches (all when nil), sorted by file then name.
func packageTests(dir string, built map[string]bool, run *regexp.Regexp) ([]censusRow, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var rows []censusRow
	fset := token.NewFileSet()
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("list the tests of %s: %w", path, err)
		}
		var names []string
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !topTest.MatchString(fn.Name.Name) || !takesT(fn) {
				continue
			}
			if built != nil && !built[fn.Name.Name] || run != nil && !run.MatchString(fn.Name.Name) {
				continue
			}
			names = append(names, fn.Name.Name)
		}
		slices.Sort(names)
		for _, n := range names {
			rows = append(rows, censusRow{Test: n, File: filepath.Base(path), Needs: adminNeeds})
		}
	}
	return rows, nil
}

// takesT reports whether fn's only parameter is a *testing.T.
func takesT(fn *ast.FuncDecl) bool {
	ps := fn.Type.Params.List
	if len(ps) != 1 || len(ps[0].Names) > 1 {
		return false
	}
	star, ok := ps[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "T" && strings.HasSuffix(fmt.Sprint(sel.X), "testing")
}
