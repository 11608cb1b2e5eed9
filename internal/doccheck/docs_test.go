// Package doccheck checks the facts the README and docs/ state that a test
// can check: that the README stays a front page, that every link leads
// somewhere, that the Go names they quote exist, and that the flags of
// cmd/brokerstub they show are its flags.
package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// repoRoot is the repository's root, two levels up from this package.
const repoRoot = "../.."

// maxREADMELines is the most the front page may hold; details go to docs/.
const maxREADMELines = 250

// docFiles are the README and every page of docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(repoRoot, "README.md")}, pages...)
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestREADMEIsAFrontPage(t *testing.T) {
	text := read(t, filepath.Join(repoRoot, "README.md"))
	if n := strings.Count(text, "\n"); n > maxREADMELines {
		t.Errorf("README.md has %d lines, at most %d: move details to a page of docs/", n, maxREADMELines)
	}
	for _, page := range docFiles(t)[1:] {
		name := "docs/" + filepath.Base(page)
		if !strings.Contains(text, "("+name+")") {
			t.Errorf("README.md does not link %s: add it to the Documentation table", name)
		}
	}
}

var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`(?m)^#+ (.+)$`)
)

// anchor is GitHub's anchor of a heading: lower case, spaces to dashes,
// punctuation dropped.
func anchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func anchors(text string) map[string]bool {
	set := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(text, -1) {
		set[anchor(m[1])] = true
	}
	return set
}

func TestDocLinksResolve(t *testing.T) {
	for _, file := range docFiles(t) {
		text := read(t, file)
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			dest := file
			if path != "" {
				dest = filepath.Join(filepath.Dir(file), path)
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s links %s, which does not exist", rel(file), target)
					continue
				}
			}
			if frag != "" && strings.HasSuffix(dest, ".md") && !anchors(read(t, dest))[frag] {
				t.Errorf("%s links %s: no heading of %s has the anchor #%s", rel(file), target, rel(dest), frag)
			}
		}
	}
}

func rel(path string) string {
	r, err := filepath.Rel(repoRoot, path)
	if err != nil {
		return path
	}
	return r
}

// goPackages are the packages whose names the docs quote, by the name they
// are quoted with.
var goPackages = map[string]string{
	"pulsar":     "pulsar",
	"brokerstub": "brokerstub",
	"messageid":  "messageid",
	"chunk":      "chunk",
	"crypto":     "pulsar/crypto",
	"keyorder":   "brokerstub/keyorder",
	"pulsarprom": "pulsar/pulsarprom",
}

// pkgNames reads a package's exported names: its top-level names, and
// "Type.Member" for each field and method of its types.
func pkgNames(t *testing.T, dir string) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	names := map[string]bool{}
	files, err := filepath.Glob(filepath.Join(repoRoot, dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = true
					continue
				}
				names[recvType(d.Recv.List[0].Type)+"."+d.Name.Name] = true
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = true
						}
					case *ast.TypeSpec:
						names[s.Name.Name] = true
						if s.Assign.IsValid() { // an alias: its members are another package's
							names[s.Name.Name+".*"] = true
						}
						addMembers(names, s.Name.Name, s.Type)
					}
				}
			}
		}
	}
	return names
}

func recvType(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvType(x.X)
	case *ast.IndexExpr:
		return recvType(x.X)
	case *ast.IndexListExpr:
		return recvType(x.X)
	case *ast.Ident:
		return x.Name
	}
	return ""
}

func addMembers(names map[string]bool, typ string, e ast.Expr) {
	var fields *ast.FieldList
	switch x := e.(type) {
	case *ast.StructType:
		fields = x.Fields
	case *ast.InterfaceType:
		fields = x.Methods
	default:
		return
	}
	for _, f := range fields.List {
		for _, n := range f.Names {
			names[typ+"."+n.Name] = true
		}
		if len(f.Names) == 0 { // embedded: its members are promoted; accept any
			names[typ+".*"] = true
		}
	}
}

// quoted finds `pkg.Name` and `pkg.Type.Member` in code spans and code
// blocks, and the bare `Type.Member` of brokerstub's and pulsar's option
// types (`Options.DataDir`, `ClientOptions.URL`).
var (
	quotedQualified = regexp.MustCompile(`\b(pulsar|brokerstub|messageid|chunk|crypto|keyorder|pulsarprom)\.([A-Z]\w*)(?:\.([A-Z]\w*))?`)
	quotedMember    = regexp.MustCompile("`((?:Options|ClientOptions|ProducerOptions|ConsumerOptions|ReaderOptions|Limits|ProducerMessage))\\.([A-Z]\\w*)")
)

// memberOwner says which package's type a bare Type.Member names.
var memberOwner = map[string]string{
	"Options": "brokerstub", "Limits": "brokerstub",
	"ClientOptions": "pulsar", "ProducerOptions": "pulsar", "ConsumerOptions": "pulsar",
	"ReaderOptions": "pulsar", "ProducerMessage": "pulsar",
}

func TestDocGoNamesExist(t *testing.T) {
	exported := map[string]map[string]bool{}
	for short, dir := range goPackages {
		exported[short] = pkgNames(t, dir)
	}
	has := func(pkg, name, member string) bool {
		names := exported[pkg]
		if !names[name] {
			return false
		}
		return member == "" || names[name+"."+member] || names[name+".*"]
	}
	var missing []string
	for _, file := range docFiles(t) {
		text := read(t, file)
		for _, m := range quotedQualified.FindAllStringSubmatch(text, -1) {
			if !has(m[1], m[2], m[3]) && !has(m[1], m[2], "") {
				missing = append(missing, rel(file)+": "+m[0])
			}
		}
		for _, m := range quotedMember.FindAllStringSubmatch(text, -1) {
			if !has(memberOwner[m[1]], m[1], m[2]) {
				missing = append(missing, rel(file)+": "+m[1]+"."+m[2])
			}
		}
	}
	sort.Strings(missing)
	for _, m := range slicesCompact(missing) {
		t.Errorf("%s: no such exported name; fix the doc or the code", m)
	}
}

func slicesCompact(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

var (
	flagDecl   = regexp.MustCompile(`fs\.\w+Var\([^,]+, "([\w-]+)"`)
	stubRun    = regexp.MustCompile(`cmd/brokerstub((?: +-[\w-]+(?:[ =][^\s-][^\s]*)?)+)`)
	flagInLine = regexp.MustCompile(`(?:^|\s)-([a-z][\w-]*)`)
)

func TestDocBrokerstubFlagsExist(t *testing.T) {
	src := ""
	files, _ := filepath.Glob(filepath.Join(repoRoot, "cmd", "brokerstub", "*.go"))
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			src += read(t, f)
		}
	}
	flags := map[string]bool{}
	for _, m := range flagDecl.FindAllStringSubmatch(src, -1) {
		flags[m[1]] = true
	}
	if len(flags) < 5 {
		t.Fatalf("found only %d flags in cmd/brokerstub: the pattern no longer matches how it declares them", len(flags))
	}
	for _, file := range docFiles(t) {
		for _, m := range stubRun.FindAllStringSubmatch(read(t, file), -1) {
			for _, f := range flagInLine.FindAllStringSubmatch(m[1], -1) {
				if !flags[f[1]] {
					t.Errorf("%s shows cmd/brokerstub -%s, which is not a flag of it", rel(file), f[1])
				}
			}
		}
	}
}
