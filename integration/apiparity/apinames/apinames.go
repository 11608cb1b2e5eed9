// Package apinames compares the API of the official Go client's pulsar
// package (and its log and backoff subpackages) with pulsargo's: it lists
// the official names, tells which pulsargo has, and writes the Go
// declaration that uses a name with its official type, for the apiparity
// program. It type-checks from the compiler's export data (go list
// -export), so it needs nothing beyond the standard library.
package apinames

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
)

// Module paths of the two clients; a package of one maps to the other's by
// swapping the prefix.
const (
	OfficialModule = "github.com/apache/pulsar-client-go"
	SDKModule      = "github.com/pulsargo/sdk"
)

// Packages are the compared packages, relative to the modules: the client
// and the subpackages applications import.
var Packages = []string{"pulsar", "pulsar/log", "pulsar/backoff", "pulsar/auth", "pulsar/crypto"}

// Load type-checks the packages (import paths) from export data, running
// go list in dir (a directory of a module that requires both clients).
func Load(dir string, paths ...string) (map[string]*types.Package, error) {
	args := append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, paths...)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("go list -export: %w\n%s", err, ee.Stderr)
		}
		return nil, fmt.Errorf("go list -export: %w", err)
	}
	exports := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		path, file, _ := strings.Cut(sc.Text(), "\t")
		exports[path] = file
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		f := exports[path]
		if f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	pkgs := map[string]*types.Package{}
	for _, p := range paths {
		pkg, err := imp.Import(p)
		if err != nil {
			return nil, fmt.Errorf("import %s: %w", p, err)
		}
		pkgs[p] = pkg
	}
	return pkgs, nil
}

// Names lists pkg's API: its exported package-level names and, for the
// types members selects, "Type.Member" for each exported struct field or
// interface method. Sorted.
func Names(pkg *types.Package, members func(typeName string) bool) []string {
	var names []string
	scope := pkg.Scope()
	for _, n := range scope.Names() {
		obj := scope.Lookup(n)
		if !obj.Exported() {
			continue
		}
		names = append(names, n)
		tn, ok := obj.(*types.TypeName)
		if !ok || members == nil || !members(n) {
			continue
		}
		switch u := tn.Type().Underlying().(type) {
		case *types.Struct:
			for i := range u.NumFields() {
				if f := u.Field(i); f.Exported() {
					names = append(names, n+"."+f.Name())
				}
			}
		case *types.Interface:
			for i := range u.NumMethods() {
				names = append(names, n+"."+u.Method(i).Name())
			}
		}
	}
	sort.Strings(names)
	return names
}

// Has reports whether pkg has the name ("Name" or "Type.Member").
func Has(pkg *types.Package, name string) bool {
	typ, member, isMember := strings.Cut(name, ".")
	obj := pkg.Scope().Lookup(typ)
	if obj == nil || !obj.Exported() {
		return false
	}
	if !isMember {
		return true
	}
	found, _, _ := types.LookupFieldOrMethod(obj.Type(), true, pkg, member)
	return found != nil && found.Exported()
}

// Decl is a declaration of the apiparity program that uses one name.
type Decl struct {
	// Name is the API name, e.g. "NewDefaultRouter", "ClientOptions.URL"
	// or, in a subpackage, "pulsar/log.Logger".
	Name string
	// Code is the Go declaration: "var _ T = x", with the official type T
	// when it can be spelled with the official module's packages and the
	// standard library, else "var _ = x".
	Code string
	// Imports are the import paths Code needs (official module paths).
	Imports []string
}

// Declare returns the declaration that uses name of pkg (an official
// package), its local name being the last element of its path. untyped
// asks for the "var _ = x" form even when the type can be spelled.
func Declare(pkg *types.Package, name string, untyped bool) (Decl, error) {
	local := pkg.Name()
	imports := map[string]string{pkg.Path(): local} // path -> package name
	spellable := true
	qual := func(p *types.Package) string {
		if p == pkg {
			return local
		}
		path := p.Path()
		first, _, _ := strings.Cut(path, "/")
		switch {
		case strings.HasPrefix(path, OfficialModule+"/") && !strings.Contains(path, "internal"):
		case !strings.Contains(first, "."):
		default:
			spellable = false
		}
		imports[path] = p.Name()
		return p.Name()
	}
	typ, member, isMember := strings.Cut(name, ".")
	obj := pkg.Scope().Lookup(typ)
	if obj == nil {
		return Decl{}, fmt.Errorf("%s has no %s", pkg.Path(), typ)
	}
	expr, t := local+"."+typ, types.Type(nil)
	switch o := obj.(type) {
	case *types.TypeName:
		if !isMember {
			expr, t = "(*"+local+"."+typ+")(nil)", types.NewPointer(o.Type())
			break
		}
		found, _, _ := types.LookupFieldOrMethod(o.Type(), true, pkg, member)
		switch f := found.(type) {
		case *types.Var:
			// The field's address, so that a field holding a lock is not
			// copied (go vet's copylocks).
			expr, t = "&new("+local+"."+typ+")."+member, types.NewPointer(f.Type())
			if _, isStruct := o.Type().Underlying().(*types.Struct); !isStruct {
				return Decl{}, fmt.Errorf("%s: a field of a non-struct", name)
			}
		case *types.Func:
			// A method expression: the receiver becomes the first parameter.
			sig := f.Type().(*types.Signature)
			params := []*types.Var{types.NewParam(token.NoPos, pkg, "", o.Type())}
			params = append(params, unnamed(sig.Params())...)
			expr = local + "." + typ + "." + member
			t = types.NewSignatureType(nil, nil, nil, types.NewTuple(params...), types.NewTuple(unnamed(sig.Results())...), sig.Variadic())
		default:
			return Decl{}, fmt.Errorf("%s: no such field or method", name)
		}
	case *types.Const:
		t = o.Type()
		if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
			t = nil
		}
	default:
		t = o.Type()
	}
	code := "var _ = " + expr
	if t != nil && !untyped {
		ts := types.TypeString(t, qual)
		if spellable {
			code = "var _ " + ts + " = " + expr
		}
	}
	d := Decl{Name: name, Code: code}
	for p, n := range imports {
		if strings.Contains(code, n+".") {
			d.Imports = append(d.Imports, p)
		}
	}
	sort.Strings(d.Imports)
	return d, nil
}

// unnamed returns the variables of t without their names.
func unnamed(t *types.Tuple) []*types.Var {
	out := make([]*types.Var, t.Len())
	for i := range out {
		out[i] = types.NewParam(token.NoPos, nil, "", t.At(i).Type())
	}
	return out
}
