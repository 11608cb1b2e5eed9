package brokerstub

import (
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// rootImportPath is brokerstub's root package, which no room imports.
const rootImportPath = "github.com/pulsargo/sdk/brokerstub"

// room is one package under brokerstub/internal: its non-test files and
// their lines, and the imports of the root package it makes.
type room struct {
	files, lines int
	backUp       []string // "file: import path" of each import of the root
}

// surveyRooms reads every Go file under dir (brokerstub/internal) and
// returns its rooms by their path below dir ("auth", "keyshared", ...).
// A test file counts as a room's too: an internal test that imports the
// root points back up as well.
func surveyRooms(dir string) (map[string]*room, error) {
	rooms := map[string]*room{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		rel, err := filepath.Rel(dir, filepath.Dir(path))
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		r := rooms[name]
		if r == nil {
			r = &room{}
			rooms[name] = r
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if p == rootImportPath {
				r.backUp = append(r.backUp, filepath.Base(path)+": "+p)
			}
		}
		if !strings.HasSuffix(path, "_test.go") {
			r.files++
			r.lines += bytes.Count(src, []byte("\n"))
		}
		return nil
	})
	return rooms, err
}

// TestRoomsPointOneWay fails when a package under brokerstub/internal
// imports brokerstub's root: the rooms are behind narrow interfaces the
// root implements, and an arrow back up would make them one room again.
// It logs each room's files and lines (non-test), and the root's, for
// the figures of issue #34 (go test -v -run TestRoomsPointOneWay).
func TestRoomsPointOneWay(t *testing.T) {
	rooms, err := surveyRooms("internal")
	if err != nil {
		t.Fatal(err)
	}
	if len(rooms) == 0 {
		t.Fatal("no package under internal/: is the test run from brokerstub?")
	}
	names := make([]string, 0, len(rooms))
	for n := range rooms {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		r := rooms[n]
		t.Logf("room %-14s %3d files %6d lines", n, r.files, r.lines)
		for _, b := range r.backUp {
			t.Errorf("room %s imports brokerstub's root (%s): take what it needs through an interface the root implements", n, b)
		}
	}
	root, _ := filepath.Glob("*.go")
	files, lines := 0, 0
	for _, p := range root {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files++
		lines += bytes.Count(src, []byte("\n"))
	}
	t.Logf("root %-14s %3d files %6d lines", "brokerstub", files, lines)
}

// TestSurveyRoomsFindsAnArrowBackUp makes sure the checker can fail: a
// room written to a temporary directory that imports the root is found.
func TestSurveyRoomsFindsAnArrowBackUp(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bad"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package bad\n\nimport _ \"" + rootImportPath + "\"\n"
	if err := os.WriteFile(filepath.Join(dir, "bad", "bad.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	good := "package good\n\nimport _ \"" + rootImportPath + "/internal/policy\"\n"
	if err := os.MkdirAll(filepath.Join(dir, "good"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "good", "good.go"), []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	rooms, err := surveyRooms(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r := rooms["bad"]; r == nil || len(r.backUp) != 1 || r.files != 1 || r.lines != 3 {
		t.Errorf("bad room: %+v, want one import of the root, 1 file of 3 lines", r)
	}
	if r := rooms["good"]; r == nil || len(r.backUp) != 0 {
		t.Errorf("good room: %+v, want no import of the root", r)
	}
}
