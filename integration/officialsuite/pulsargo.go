package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// With -client pulsargo the official tests run against pulsargo's client
// instead of their own: its pulsar package's test files are compiled into a
// copy of pulsargo's pulsar package (the same package name, so only the
// code under test changes, as for a user who changes the import path) and
// run against the same stub. Declarations that cannot compile against
// pulsargo — they use the official client's unexported internals, or API
// pulsargo does not have yet — are pruned until the rest compiles; the tests
// they held are reported as not built. The tests' own dependencies (testify,
// uuid, logrus, pkg/errors, testcontainers, ...) are provided at the
// versions the official client requires, and so is the official pulsaradmin
// they create topics with, as a user who changes only the pulsar import
// keeps them.

const (
	// officialPath is the official client's module path.
	officialPath = "github.com/apache/pulsar-client-go"
	// sdkModule is pulsargo's module path.
	sdkModule = "github.com/pulsargo/sdk"
	// portedPrefix names the official test files in the copy, apart from
	// pulsargo's own sources.
	portedPrefix = "official_"
)

// sdkRoot returns the directory of the pulsargo checkout this module
// replaces github.com/pulsargo/sdk with.
func sdkRoot() (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", sdkModule)
	cmd.Env = goEnv()
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("locate %s: %w", sdkModule, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// preparePulsargo builds, into p.Work, a copy of pulsargo whose pulsar
// package holds the official tests (p.Src is that copy); p.Stub is built by
// the caller.
func preparePulsargo(ctx context.Context, p *prepared, official string, ps ports, race bool, log io.Writer) error {
	root, err := sdkRoot()
	if err != nil {
		return err
	}
	sdk := filepath.Join(p.Work, "sdk")
	if err := os.RemoveAll(sdk); err != nil {
		return err
	}
	if err := copyTree(root, sdk, func(rel string) bool {
		return rel == ".git" || rel == "integration" || strings.HasPrefix(rel, "pulsar/") && strings.HasSuffix(rel, "_test.go")
	}); err != nil {
		return err
	}
	// The official tests read ../integration-tests (certificates, tokens).
	if err := copyTree(filepath.Join(official, "integration-tests"), filepath.Join(sdk, "integration-tests"), nil); err != nil {
		return err
	}
	// The encryption tests read crypto/testdata (the official test keys).
	if err := copyTree(filepath.Join(official, "pulsar", "crypto", "testdata"), filepath.Join(sdk, "pulsar", "crypto", "testdata"), nil); err != nil {
		return err
	}
	pkg := filepath.Join(sdk, "pulsar")
	mods, err := portTests(official, pkg, sdk)
	if err != nil {
		return err
	}
	if err := requireTestModules(ctx, log, official, sdk, mods); err != nil {
		return err
	}
	if _, ok := mods[officialPath]; ok {
		// The official pulsaradmin the tests use is the work copy's, its
		// default web service URL retargeted to the stub as in a run of
		// the official client (the module cache's copy says
		// localhost:8080).
		if err := retargetPort(official, ps); err != nil {
			return err
		}
		abs, err := filepath.Abs(official)
		if err != nil {
			return err
		}
		if err := goCmd(ctx, log, sdk, "mod", "edit", "-replace="+officialPath+"="+abs); err != nil {
			return err
		}
	}
	// Every package the tests import is provided by a module the official
	// client's build requires (at its version), so tidy looks nothing up
	// at "latest"; it may fetch go.mod files of the module graph.
	if err := goCmd(ctx, log, sdk, "mod", "tidy"); err != nil {
		return err
	}
	if err := retargetPort(sdk, ps); err != nil {
		return err
	}
	if err := prune(ctx, pkg, portedPrefix, log); err != nil {
		return err
	}
	p.Src = sdk
	args := []string{"test", "-c", "-trimpath", "-o", p.TestBin}
	if race {
		args = append(args, "-race")
	}
	return goCmd(ctx, log, sdk, append(args, "./pulsar")...)
}

// portTests copies the official pulsar package's test files into pkg with
// portedPrefix and points their imports at the SDK. An import resolves when
// it is the standard library's, a module of the SDK's build, a module the
// official client requires (its tests' own dependencies: testify, uuid,
// logrus, pkg/errors, ...), or the official module's pulsaradmin packages
// (the admin client the tests set topics up with; pulsargo has none, so a
// user who changes the pulsar import keeps it). Every other import is
// deleted, and the declarations that used it are pruned. It returns the
// modules (path to version) the ported files need beyond the SDK's build.
func portTests(official, pkg, sdk string) (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(official, "pulsar", "*_test.go"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Path}}", "all")
	cmd.Dir, cmd.Env = sdk, goEnv()
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m all in the copy: %w", err)
	}
	resolvable := strings.Fields(string(out))
	requires, err := officialRequires(official)
	if err != nil {
		return nil, err
	}
	needed := map[string]string{}
	keep := func(path string) bool {
		first, _, _ := strings.Cut(path, "/")
		if !strings.Contains(first, ".") {
			return true // standard library
		}
		if sub, ok := strings.CutPrefix(path, officialPath+"/"); ok {
			if sub == "pulsaradmin" || strings.HasPrefix(sub, "pulsaradmin/") {
				needed[officialPath] = officialVersion
				return true
			}
			return false
		}
		for _, m := range resolvable {
			if path == m || strings.HasPrefix(path, m+"/") {
				return true
			}
		}
		if m, v := moduleOf(path, requires); m != "" {
			needed[m] = v
			return true
		}
		return false
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		dst := filepath.Join(pkg, portedPrefix+filepath.Base(f))
		if err := os.WriteFile(dst, src, 0o644); err != nil {
			return nil, err
		}
		if err := rewriteImports(dst, sdk, keep); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	return needed, nil
}

// officialVersion is the official client's version, from officialModule.
var officialVersion = officialModule[strings.LastIndex(officialModule, "@")+1:]

// officialRequires returns the modules the go.mod in dir (the official
// client's) requires, path to version.
func officialRequires(official string) (map[string]string, error) {
	cmd := exec.Command("go", "mod", "edit", "-json")
	cmd.Dir, cmd.Env = official, goEnv()
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go mod edit -json in %s: %w", official, err)
	}
	var gm struct {
		Require []struct{ Path, Version string }
	}
	if err := json.Unmarshal(out, &gm); err != nil {
		return nil, fmt.Errorf("the official go.mod: %w", err)
	}
	m := map[string]string{}
	for _, r := range gm.Require {
		m[r.Path] = r.Version
	}
	return m, nil
}

// moduleOf returns the module of requires that provides the package path
// (the longest matching module path), or "".
func moduleOf(path string, requires map[string]string) (string, string) {
	best := ""
	for m := range requires {
		if (path == m || strings.HasPrefix(path, m+"/")) && len(m) > len(best) {
			best = m
		}
	}
	return best, requires[best]
}

// integrationSum returns the go.sum of the module officialsuite runs in.
func integrationSum() ([]byte, error) {
	cmd := exec.Command("go", "env", "GOMOD")
	cmd.Env = goEnv()
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOMOD: %w", err)
	}
	return os.ReadFile(filepath.Join(filepath.Dir(strings.TrimSpace(string(out))), "go.sum"))
}

// requireTestModules adds the modules the ported tests need to the copy's
// go.mod, at the versions the official client requires, with the official
// go.sum's checksums (so that no checksum is fetched: the modules are the
// ones the official client's own build uses).
func requireTestModules(ctx context.Context, log io.Writer, official, sdk string, mods map[string]string) error {
	if len(mods) == 0 {
		return nil
	}
	// The modules the tests import, and every other module the official
	// client requires (their dependencies, at the official versions; tidy
	// drops those not used).
	requires, err := officialRequires(official)
	if err != nil {
		return err
	}
	maps.Copy(requires, mods)
	own, err := officialRequires(sdk) // the SDK's own requires keep their versions
	if err != nil {
		return err
	}
	for m := range own {
		delete(requires, m)
	}
	args := []string{"mod", "edit"}
	for _, m := range slices.Sorted(maps.Keys(requires)) {
		args = append(args, "-require="+m+"@"+requires[m])
	}
	if err := goCmd(ctx, log, sdk, args...); err != nil {
		return err
	}
	sums, err := os.ReadFile(filepath.Join(official, "go.sum"))
	if err != nil {
		return err
	}
	// The official module's own checksums are in this (integration)
	// module's go.sum, which requires it.
	isum, err := integrationSum()
	if err != nil {
		return err
	}
	sums = append(sums, isum...)
	f, err := os.OpenFile(filepath.Join(sdk, "go.sum"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(sums); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// builtTests lists the tests in a test binary.
func builtTests(bin, dir string) (map[string]bool, error) {
	cmd := exec.Command(bin, "-test.list", "^Test")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("list the built tests: %w", err)
	}
	built := map[string]bool{}
	for _, name := range bytes.Fields(out) {
		built[string(name)] = true
	}
	return built, nil
}
