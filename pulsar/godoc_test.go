package pulsar

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// internalPath reports whether an import path is an internal package, one a
// user cannot import and pkg.go.dev does not link from this package's page.
func internalPath(path string) bool {
	return strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal")
}

// typeCheckPulsar type-checks this package's non-test files from source.
func typeCheckPulsar(t *testing.T) *types.Package {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var parsed []*ast.File
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, af)
	}
	// The imports come from their export data, which go list -export builds
	// (and caches): type-checking them from source takes a minute. With
	// -race and -trimpath when this test binary was built with them (go run
	// ./internal/testrun gives both): its imports were just compiled so for
	// this binary and come from the cache, where otherwise they would all be
	// compiled once more (half a minute of CPU on a fresh CI machine).
	args := []string{"list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}"}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, flag := range []string{"-race", "-trimpath"} {
			if slices.Contains(info.Settings, debug.BuildSetting{Key: flag, Value: "true"}) {
				args = append(args, flag)
			}
		}
	}
	out, err := exec.Command("go", append(args, ".")...).Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	exports := map[string]string{}
	for line := range strings.Lines(string(out)) {
		if path, file, ok := strings.Cut(strings.TrimSpace(line), "="); ok && file != "" {
			exports[path] = file
		}
	}
	lookup := func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	pkg, err := conf.Check("github.com/pulsargo/sdk/pulsar", fset, parsed, nil)
	if err != nil {
		t.Fatalf("type-check pulsar: %v", err)
	}
	return pkg
}

// internalAliasesLeft are the exported aliases of internal types not made
// types of this package yet, each with the reason; the test fails on any
// other, and on one of these that is no longer an alias (remove it here).
var internalAliasesLeft = map[string]string{}

// TestExportedTypesAreDefinedHere checks that every exported type of package
// pulsar is defined in pulsar or in a public package, never an alias of an
// internal one: `go doc` and pkg.go.dev print an alias as
// "type X = api.X", with none of its fields, methods or docs, and send the
// reader to a package they cannot import. An exported constant or variable
// must not have an internal type either (its type's docs would be just as
// hidden). Finally `go doc` on ProducerMessage must list its fields.
func TestExportedTypesAreDefinedHere(t *testing.T) {
	pkg := typeCheckPulsar(t)
	var bad []string
	for _, name := range pkg.Scope().Names() {
		obj := pkg.Scope().Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.TypeName:
			if !obj.IsAlias() {
				if _, left := internalAliasesLeft[name]; left {
					bad = append(bad, "type "+name+" is no longer an alias: remove it from internalAliasesLeft")
				}
				continue
			}
			n, ok := types.Unalias(obj.Type()).(*types.Named)
			internal := ok && n.Obj().Pkg() != nil && internalPath(n.Obj().Pkg().Path())
			if _, left := internalAliasesLeft[name]; left != internal {
				if left {
					bad = append(bad, "type "+name+" is no longer an alias of an internal type: remove it from internalAliasesLeft")
				} else {
					bad = append(bad, "type "+name+" is an alias of "+n.Obj().Pkg().Path()+"."+n.Obj().Name())
				}
			}
		case *types.Const, *types.Var:
			if n, ok := types.Unalias(obj.Type()).(*types.Named); ok && n.Obj().Pkg() != nil && internalPath(n.Obj().Pkg().Path()) {
				bad = append(bad, "var or const "+name+" has the internal type "+n.Obj().Pkg().Path()+"."+n.Obj().Name())
			}
			if p, ok := types.Unalias(obj.Type()).(*types.Pointer); ok {
				if n, ok := types.Unalias(p.Elem()).(*types.Named); ok && n.Obj().Pkg() != nil && internalPath(n.Obj().Pkg().Path()) {
					bad = append(bad, "var "+name+" has the internal type *"+n.Obj().Pkg().Path()+"."+n.Obj().Name())
				}
			}
		}
	}
	slices.Sort(bad)
	for _, b := range bad {
		t.Error(b)
	}

	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run go doc")
	}
	out, err := exec.Command(goBin, "doc", ".", "ProducerMessage").CombinedOutput()
	if err != nil {
		t.Fatalf("go doc ProducerMessage: %v\n%s", err, out)
	}
	for _, want := range []string{"type ProducerMessage struct", "Payload []byte", "Key string", "Transaction Transaction"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("go doc ProducerMessage does not show %q:\n%s", want, out)
		}
	}
}
