// Package typecheck type-checks one package of this module from its source
// files, against its imports' export data, for the tests that check the
// code's shape: which names a package exports, which file's code names
// which file's definitions.
//
//	pkg, info, fset, err := typecheck.Dir(".", "github.com/pulsargo/sdk/pulsar")
//
// The export data comes from go list -export, with -race and -trimpath when
// the calling test binary was built with them, so that the imports come
// from the build cache instead of being compiled once more.
package typecheck

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
)

// Dir type-checks the non-test .go files of dir as the package importPath
// and returns it with the uses and definitions of its identifiers
// (types.Info.Uses, Defs and Selections) and the file set its positions
// refer to.
func Dir(dir, importPath string) (*types.Package, *types.Info, *token.FileSet, error) {
	return DirWith(dir, importPath, nil)
}

// DirWith is Dir with extra source files (name to source) added to the
// package, as a test plants the mistake its check must find. They may
// import only what the package in dir depends on.
func DirWith(dir, importPath string, extra map[string]string) (*types.Package, *types.Info, *token.FileSet, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, nil, nil, err
	}
	var parsed []*ast.File
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return nil, nil, nil, err
		}
		parsed = append(parsed, af)
	}
	for _, name := range slices.Sorted(maps.Keys(extra)) {
		af, err := parser.ParseFile(fset, name, extra[name], parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return nil, nil, nil, err
		}
		parsed = append(parsed, af)
	}
	exports, err := exportData(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	lookup := func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("typecheck: no export data for %s", path)
		}
		return os.Open(file)
	}
	info := &types.Info{
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	pkg, err := conf.Check(importPath, fset, parsed, info)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("typecheck %s: %w", importPath, err)
	}
	return pkg, info, fset, nil
}

// exportData returns the export data file of every dependency of the
// package in dir, by import path. Type-checking the imports from source
// instead takes a minute.
func exportData(dir string) (map[string]string, error) {
	args := []string{"list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}"}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, flag := range []string{"-race", "-trimpath"} {
			if slices.Contains(info.Settings, debug.BuildSetting{Key: flag, Value: "true"}) {
				args = append(args, flag)
			}
		}
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("typecheck: go list -export: %w", err)
	}
	exports := map[string]string{}
	for line := range strings.Lines(string(out)) {
		if path, file, ok := strings.Cut(strings.TrimSpace(line), "="); ok && file != "" {
			exports[path] = file
		}
	}
	return exports, nil
}
