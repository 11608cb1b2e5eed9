package admin

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
)

const engineImportPath = "github.com/pulsargo/sdk/brokerstub/internal/engine"

// statefulEngineTypes are the engine's types that own a topic's state; the
// HTTP side uses them through methods only (issue #34). Every unexported
// engine type (counters, access state, client info...) counts as well.
var statefulEngineTypes = []string{"Engine", "Topic", "Subscription", "Consumer", "Producer"}

// TestAdminReadsNoEngineState type-checks this package and fails on any
// access to a field of an engine type that holds state (a topic, its
// subscriptions, consumers, producers, or what hangs off them): that work
// belongs in an engine method run on the topic's goroutine. The engine's
// JSON views (TopicStats, ResetCursorData...) are data and may be read.
func TestAdminReadsNoEngineState(t *testing.T) {
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, p, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: exportImporter(t, fset)}
	if _, err := conf.Check("github.com/pulsargo/sdk/brokerstub/internal/admin", fset, files, info); err != nil {
		t.Fatal(err)
	}
	var bad []string
	for sel, s := range info.Selections {
		if s.Kind() != types.FieldVal || s.Obj().Pkg() == nil || s.Obj().Pkg().Path() != engineImportPath {
			continue
		}
		// The field's own struct: the last type the selection goes through.
		recv := s.Recv()
		if p, ok := recv.(*types.Pointer); ok {
			recv = p.Elem()
		}
		named, ok := recv.(*types.Named)
		if !ok {
			continue
		}
		name := named.Obj().Name()
		if slices.Contains(statefulEngineTypes, name) || !unicode.IsUpper([]rune(name)[0]) {
			bad = append(bad, fset.Position(sel.Pos()).String()+": "+name+"."+sel.Sel.Name)
		}
	}
	slices.Sort(bad)
	for _, b := range bad {
		t.Errorf("%s: admin reads engine state through a field; call an engine method (topic_admin_ops.go) instead", b)
	}
}

// exportImporter imports this package's dependencies from the compiler's
// export data, which `go list -export` builds (or finds in the build cache).
func exportImporter(t *testing.T, fset *token.FileSet) types.Importer {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	export := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, "\t"); ok && file != "" {
			export[path] = file
		}
	}
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := export[path]
		if !ok {
			return nil, os.ErrNotExist
		}
		return os.Open(file)
	})
}
