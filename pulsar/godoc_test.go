package pulsar

import (
	"go/types"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/internal/typecheck"
)

// internalPath reports whether an import path is an internal package, one a
// user cannot import and pkg.go.dev does not link from this package's page.
func internalPath(path string) bool {
	return strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal")
}

// typeCheckPulsar type-checks this package's non-test files from source.
func typeCheckPulsar(t *testing.T) *types.Package {
	t.Helper()
	pkg, _, _, err := typecheck.Dir(".", "github.com/pulsargo/sdk/pulsar")
	if err != nil {
		t.Fatal(err)
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
