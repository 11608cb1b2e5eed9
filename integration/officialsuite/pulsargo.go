package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// With -client pulsargo the official tests run against pulsargo's client
// instead of their own: its pulsar package's test files are compiled into a
// copy of pulsargo's pulsar package (the same package name, so only the
// code under test changes, as for a user who changes the import path) and
// run against the same stub. Declarations that cannot compile against
// pulsargo — they use the official client's unexported internals, or API
// pulsargo does not have yet — are pruned until the rest compiles; the tests
// they held are reported as not built.

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
	if err := goCmd(ctx, log, sdk, "mod", "tidy"); err != nil {
		return err
	}
	pkg := filepath.Join(sdk, "pulsar")
	if err := portTests(official, pkg, sdk); err != nil {
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
// portedPrefix and points their imports at the SDK.
func portTests(official, pkg, sdk string) error {
	files, err := filepath.Glob(filepath.Join(official, "pulsar", "*_test.go"))
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Path}}", "all")
	cmd.Dir, cmd.Env = sdk, goEnv()
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go list -m all in the copy: %w", err)
	}
	resolvable := strings.Fields(string(out))
	keep := func(path string) bool {
		first, _, _ := strings.Cut(path, "/")
		if !strings.Contains(first, ".") {
			return true // standard library
		}
		for _, m := range resolvable {
			if m != officialPath && (path == m || strings.HasPrefix(path, m+"/")) {
				return true
			}
		}
		return false
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		dst := filepath.Join(pkg, portedPrefix+filepath.Base(f))
		if err := os.WriteFile(dst, src, 0o644); err != nil {
			return err
		}
		if err := rewriteImports(dst, sdk, keep); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	return nil
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
