package protocol

import (
	"bytes"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const enginePath = "github.com/pulsargo/sdk/brokerstub/internal/engine"

// dataOnly are the engine types whose fields the protocol may read and
// set: the content of a request or an answer, not state.
var dataOnly = []string{"SendRequest", "Refusal"}

// exportsOf returns where the go tool keeps the export data of the
// package in dir and of everything it imports, by import path.
func exportsOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", ".")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v\n%s", err, stderr.Bytes())
	}
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, "\t"); ok && file != "" {
			exports[path] = file
		}
	}
	return exports
}

// engineFieldUses type-checks files as package path, importing from
// exports, and returns "file:line: Type.Field" for each field of an
// engine type other than dataOnly's that the files read or set.
func engineFieldUses(t *testing.T, fset *token.FileSet, path string, files []*ast.File, exports map[string]string) []string {
	t.Helper()
	imp := importer.ForCompiler(fset, "gc", func(p string) (io.ReadCloser, error) {
		return os.Open(exports[p])
	})
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: imp}
	pkg, err := conf.Check(path, fset, files, info)
	if err != nil {
		t.Fatalf("type-check %s: %v", path, err)
	}
	allowed := map[types.Object]bool{}
	for _, imported := range pkg.Imports() {
		if imported.Path() != enginePath {
			continue
		}
		for _, name := range dataOnly {
			obj := imported.Scope().Lookup(name)
			if obj == nil {
				t.Fatalf("engine.%s is gone: update dataOnly", name)
			}
			st := obj.Type().Underlying().(*types.Struct)
			for i := range st.NumFields() {
				allowed[st.Field(i)] = true
			}
		}
	}
	owner := map[*ast.Ident]string{} // the receiver type of a selected field
	for sel, s := range info.Selections {
		if s.Kind() == types.FieldVal {
			owner[sel.Sel] = types.TypeString(s.Recv(), func(*types.Package) string { return "" })
		}
	}
	var uses []string
	for id, obj := range info.Uses {
		v, ok := obj.(*types.Var)
		if !ok || !v.IsField() || v.Pkg() == nil || v.Pkg().Path() != enginePath || allowed[v] {
			continue
		}
		of := owner[id]
		if of == "" {
			of = "(literal)"
		}
		pos := fset.Position(id.Pos())
		uses = append(uses, filepath.Base(pos.Filename)+":"+strconv.Itoa(pos.Line)+": "+strings.TrimPrefix(of, "*")+"."+v.Name())
	}
	sort.Strings(uses)
	return uses
}

// TestProtocolUsesEngineThroughMethods fails when the protocol reads or
// writes a field of the engine's topics, subscriptions, consumers,
// producers or anything reached through them: their state is the
// engine's, changed on the topic goroutine by its methods (issue #34).
func TestProtocolUsesEngineThroughMethods(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	uses := engineFieldUses(t, fset, "github.com/pulsargo/sdk/brokerstub/internal/protocol", files, exportsOf(t, "."))
	for _, u := range uses {
		t.Errorf("%s: an engine field; ask the engine through a method (engine/protocol_ops_*.go)", u)
	}
}

// TestEngineFieldUsesFindsAField makes sure the check can fail: a field of
// a producer and one of a topic reached through it are found, a data-only
// type's field and a method are not.
func TestEngineFieldUsesFindsAField(t *testing.T) {
	src := `package x

import "github.com/pulsargo/sdk/brokerstub/internal/engine"

func f(p *engine.Producer, r *engine.Refusal) (uint64, bool, uint64) {
	_ = r.Text
	return p.Id, p.T.Np == nil, p.ID()
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := engineFieldUses(t, fset, "x", []*ast.File{f}, exportsOf(t, "."))
	want := []string{"x.go:7: Producer.Id", "x.go:7: Producer.T", "x.go:7: Topic.Np"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("found %q, want %q", got, want)
	}
}
