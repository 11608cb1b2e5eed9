package main

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// A compile error of the ported package: file (base name), line and text.
type compileError struct {
	file string
	line int
	msg  string
}

var errLine = regexp.MustCompile(`^(?:\./)?([^:\s]+\.go):(\d+):(\d+): (.*)$`)

// parseErrors reads the compiler's output; continuation lines (indented)
// and summary lines are skipped.
func parseErrors(out []byte) []compileError {
	var errs []compileError
	for _, l := range strings.Split(string(out), "\n") {
		m := errLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		errs = append(errs, compileError{file: filepath.Base(m[1]), line: n, msg: m[4]})
	}
	return errs
}

// compile type-checks the test binary of dir's package with every error
// reported (-gcflags=-e), returning the compiler output on failure.
func compile(ctx context.Context, dir string) ([]byte, bool) {
	cmd := exec.CommandContext(ctx, "go", "test", "-c", "-o", os.DevNull, "-gcflags=-e", ".")
	cmd.Dir, cmd.Env = dir, goEnv()
	out, err := cmd.CombinedOutput()
	return out, err == nil
}

var redeclared = regexp.MustCompile(`^(\w+) redeclared in this block`)

// prune deletes from the ported files (those named with prefix in dir) the
// top-level declarations the compiler rejects, and the imports that are no
// longer used, until the package's tests compile. It never edits the SDK's
// own files: a clash with one of their names removes the ported declaration.
func prune(ctx context.Context, dir, prefix string, log io.Writer) error {
	for round := 1; ; round++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		out, ok := compile(ctx, dir)
		if ok {
			return nil
		}
		errs := parseErrors(out)
		if len(errs) == 0 {
			return fmt.Errorf("ported tests do not compile, and the output names no line:\n%s", out)
		}
		drops := map[string]map[int]string{} // file -> lines whose declaration goes, with the error
		byName := map[string]bool{}          // names to drop from the ported files
		for _, e := range errs {
			if strings.HasPrefix(e.file, prefix) {
				if drops[e.file] == nil {
					drops[e.file] = map[int]string{}
				}
				if _, seen := drops[e.file][e.line]; !seen {
					drops[e.file][e.line] = e.msg
				}
				continue
			}
			m := redeclared.FindStringSubmatch(e.msg)
			if m == nil {
				return fmt.Errorf("the SDK's own file %s:%d fails to compile with the ported tests: %s", e.file, e.line, e.msg)
			}
			byName[m[1]] = true
		}
		removed := 0
		files, err := filepath.Glob(filepath.Join(dir, prefix+"*.go"))
		if err != nil {
			return err
		}
		for _, path := range files {
			gone, err := dropDecls(path, drops[filepath.Base(path)], byName)
			if err != nil {
				return err
			}
			for _, g := range gone {
				fmt.Fprintf(log, "officialsuite: pruned %s (%s): %s\n", g.name, filepath.Base(path), g.why)
			}
			removed += len(gone)
		}
		fmt.Fprintf(log, "officialsuite: pruning round %d: %d compile errors, %d declarations removed\n", round, len(errs), removed)
		if removed == 0 {
			return fmt.Errorf("no progress pruning the ported tests:\n%s", out)
		}
	}
}

// span is a byte range of a source file to delete.
type span struct{ from, to int }

// A declaration dropDecls removed: its name and the first compile error
// in it ("redeclared" for a clash with the SDK's names).
type dropped struct{ name, why string }

// dropDecls removes from the file the top-level declarations (or the single
// specs of a grouped declaration) that contain one of lines (mapped to
// their compile error) or declare one of names, and returns them.
func dropDecls(path string, lines map[int]string, names map[string]bool) ([]dropped, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	tf := fset.File(f.Pos())
	off := func(p token.Pos) int { return tf.Offset(p) }
	// why returns the first error within n's lines, or "".
	why := func(n ast.Node) string {
		a, b := fset.Position(n.Pos()).Line, fset.Position(n.End()).Line
		for l := a; l <= b; l++ {
			if msg, ok := lines[l]; ok {
				return msg
			}
		}
		return ""
	}
	var cut []span
	var gone []dropped
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			msg := why(d)
			if msg == "" && d.Recv == nil && names[d.Name.Name] {
				msg = "redeclared"
			}
			if msg != "" {
				gone = append(gone, dropped{d.Name.Name, msg})
				from := d.Pos()
				if d.Doc != nil {
					from = d.Doc.Pos()
				}
				cut = append(cut, span{off(from), off(d.End())})
			}
		case *ast.GenDecl:
			var specs []ast.Spec
			for _, s := range d.Specs {
				msg := why(s)
				if msg == "" && declares(s, names) {
					msg = "redeclared"
				}
				if msg != "" {
					specs = append(specs, s)
					gone = append(gone, dropped{specName(s), msg})
				}
			}
			switch {
			case len(specs) == 0:
			case len(specs) == len(d.Specs):
				from := d.Pos()
				if d.Doc != nil {
					from = d.Doc.Pos()
				}
				cut = append(cut, span{off(from), off(d.End())})
			default:
				for _, s := range specs {
					cut = append(cut, span{off(s.Pos()), off(s.End())})
				}
			}
		}
	}
	if len(cut) == 0 {
		return nil, nil
	}
	sort.Slice(cut, func(i, j int) bool { return cut[i].from > cut[j].from })
	for _, c := range cut {
		src = append(src[:c.from:c.from], src[c.to:]...)
	}
	src = bytes.ReplaceAll(src, []byte("import ()"), nil)
	return gone, os.WriteFile(path, src, 0o644)
}

// specName names a spec for the pruning log.
func specName(s ast.Spec) string {
	switch s := s.(type) {
	case *ast.TypeSpec:
		return s.Name.Name
	case *ast.ValueSpec:
		return s.Names[0].Name
	case *ast.ImportSpec:
		return s.Path.Value
	}
	return "?"
}

func declares(s ast.Spec, names map[string]bool) bool {
	switch s := s.(type) {
	case *ast.TypeSpec:
		return names[s.Name.Name]
	case *ast.ValueSpec:
		for _, n := range s.Names {
			if names[n.Name] {
				return true
			}
		}
	}
	return false
}

// rewriteImports points the ported files' imports of the official client's
// subpackages at the SDK's packages of the same name where the SDK has one,
// and deletes imports the work module cannot resolve (the compiler then
// rejects the declarations that used them). keep reports whether an import
// path resolves.
func rewriteImports(path, sdkRoot string, keep func(string) bool) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return err
	}
	tf := fset.File(f.Pos())
	type edit struct {
		from, to int
		text     string
	}
	var edits []edit
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			continue
		}
		var local []edit
		dropped := 0
		for _, s := range g.Specs {
			im := s.(*ast.ImportSpec)
			p, _ := strconv.Unquote(im.Path.Value)
			if sub, ok := strings.CutPrefix(p, officialPath+"/"); ok && !strings.Contains(sub, "internal") {
				if st, err := os.Stat(filepath.Join(sdkRoot, sub)); err == nil && st.IsDir() {
					local = append(local, edit{tf.Offset(im.Path.Pos()), tf.Offset(im.Path.End()), strconv.Quote(sdkModule + "/" + sub)})
					continue
				}
			}
			if !keep(p) {
				dropped++
				local = append(local, edit{tf.Offset(im.Pos()), tf.Offset(im.End()), ""})
			}
		}
		if dropped == len(g.Specs) {
			local = []edit{{tf.Offset(g.Pos()), tf.Offset(g.End()), ""}}
		}
		edits = append(edits, local...)
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].from > edits[j].from })
	for _, e := range edits {
		src = append(src[:e.from:e.from], append([]byte(e.text), src[e.to:]...)...)
	}
	return os.WriteFile(path, src, 0o644)
}
