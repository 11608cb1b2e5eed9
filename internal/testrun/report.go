package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// event is one line of go test -json (cmd/test2json's TestEvent).
type event struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string // build-output, build-fail
	Test       string
	Elapsed    float64
	Output     string
}

// pkgState is what the report knows of one package.
type pkgState struct {
	started  time.Time
	declared int                         // top-level tests, examples and fuzz targets in its files
	done     int                         // top-level tests finished
	running  map[string]bool             // top-level tests running now (not paused for t.Parallel)
	output   strings.Builder             // the package's own output (panics, TestMain)
	perTest  map[string]*strings.Builder // output of each top-level test still running
	finished bool
}

// report follows the events of one go test run.
type report struct {
	out  io.Writer
	dir  string // the module's directory, to count a package's tests
	now  func() time.Time
	mu   sync.Mutex
	pkgs map[string]*pkgState
	fail bool
	// build collects build output per import path until it fails.
	build map[string]*strings.Builder
}

func newReport(out io.Writer, dir string, now func() time.Time) *report {
	return &report{out: out, dir: dir, now: now, pkgs: map[string]*pkgState{}, build: map[string]*strings.Builder{}}
}

// read consumes go test's JSON events until EOF. A line that is not JSON
// (go test writes some before it starts) is shown as it is.
func (r *report) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Action == "" {
			fmt.Fprintln(r.out, sc.Text())
			continue
		}
		r.handle(ev)
	}
	return sc.Err()
}

// top is a test's top-level name: "TestA" for "TestA/sub".
func top(test string) string {
	name, _, _ := strings.Cut(test, "/")
	return name
}

func (r *report) pkg(name string) *pkgState {
	p := r.pkgs[name]
	if p == nil {
		p = &pkgState{started: r.now(), perTest: map[string]*strings.Builder{}, running: map[string]bool{}, declared: -1}
		r.pkgs[name] = p
	}
	return p
}

func (r *report) handle(ev event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev.Action {
	case "build-output":
		b := r.build[ev.ImportPath]
		if b == nil {
			b = &strings.Builder{}
			r.build[ev.ImportPath] = b
		}
		b.WriteString(ev.Output)
		return
	case "build-fail":
		fmt.Fprintf(r.out, "BUILD FAILED %s\n%s", ev.ImportPath, r.build[ev.ImportPath])
		r.fail = true
		return
	}
	if ev.Package == "" {
		return
	}
	p := r.pkg(ev.Package)
	if ev.Test == "" {
		switch ev.Action {
		case "output":
			p.output.WriteString(ev.Output)
		case "pass", "skip":
			p.finished = true
			if strings.Contains(p.output.String(), "[no test files]") {
				return
			}
			fmt.Fprintf(r.out, "ok   %-60s %6.1fs  %d tests\n", ev.Package, ev.Elapsed, p.done)
		case "fail":
			p.finished, r.fail = true, true
			fmt.Fprintf(r.out, "FAIL %-60s %6.1fs\n%s", ev.Package, ev.Elapsed, tail(p.output.String(), 200))
		}
		return
	}
	name := top(ev.Test)
	buf := p.perTest[name]
	if buf == nil {
		buf = &strings.Builder{}
		p.perTest[name] = buf
	}
	switch ev.Action {
	case "run", "cont":
		if ev.Test == name {
			p.running[name] = true
		}
	case "pause":
		if ev.Test == name {
			delete(p.running, name)
		}
	case "output":
		buf.WriteString(ev.Output)
	case "fail":
		if ev.Test == name {
			r.fail = true
			fmt.Fprintf(r.out, "--- FAIL %s %s (%.2fs)\n%s", ev.Package, name, ev.Elapsed, tail(buf.String(), 400))
		}
		fallthrough
	case "pass", "skip":
		if ev.Test == name {
			p.done++
			delete(p.perTest, name)
			delete(p.running, name)
		}
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[... %d lines before]\n", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "")
}

// progress shows the packages running now: tests done of those declared,
// the test running, and for how long.
func (r *report) progress() {
	r.mu.Lock()
	defer r.mu.Unlock()
	var names []string
	for name, p := range r.pkgs {
		if !p.finished && len(p.running) > 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		p := r.pkgs[name]
		if p.declared < 0 {
			p.declared = r.declared(name)
		}
		of := ""
		if p.declared > 0 {
			of = fmt.Sprintf(" of %d", max(p.declared, p.done))
		}
		fmt.Fprintf(r.out, "...  %-60s %6.0fs  %d%s tests done, running %s\n", name, r.now().Sub(p.started).Seconds(), p.done, of, runningNames(p.running))
	}
}

// runningNames lists the tests running at once (several with t.Parallel),
// sorted, the first three by name.
func runningNames(running map[string]bool) string {
	names := make([]string, 0, len(running))
	for name := range running {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) > 3 {
		return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
	}
	return strings.Join(names, ", ")
}

// declared counts the top-level tests, examples and fuzz targets in a
// package's test files (build tags aside), or 0 when it cannot tell.
func (r *report) declared(importPath string) int {
	mod, err := os.ReadFile(filepath.Join(r.dir, "go.mod"))
	if err != nil {
		return 0
	}
	var modPath string
	for _, line := range strings.Split(string(mod), "\n") {
		if rest, ok := strings.CutPrefix(line, "module "); ok {
			modPath = strings.TrimSpace(rest)
			break
		}
	}
	rel, ok := strings.CutPrefix(importPath, modPath)
	if !ok {
		return 0
	}
	files, _ := filepath.Glob(filepath.Join(r.dir, filepath.FromSlash(strings.TrimPrefix(rel, "/")), "*_test.go"))
	n := 0
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil {
				continue
			}
			name := fn.Name.Name
			for _, prefix := range []string{"Test", "Example", "Fuzz"} {
				if strings.HasPrefix(name, prefix) && name != "TestMain" {
					n++
					break
				}
			}
		}
	}
	return n
}

// failed reports whether a test, a package or a build failed.
func (r *report) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fail
}
