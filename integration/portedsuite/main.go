// Command portedsuite runs the official Go client's own package tests
// against pulsargo: the test files of github.com/apache/pulsar-client-go
// v0.19.0's pulsar package are compiled against pulsargo's pulsar package —
// the same package name, so only the import path of the code under test
// changes — and run against cmd/brokerstub. It answers "does code written
// for the official client behave the same on pulsargo?" with the official
// client's own assertions.
//
// Tests that cannot compile against pulsargo (they use the official
// client's unexported internals, or API pulsargo does not have yet) are
// pruned declaration by declaration until the rest compiles; the report
// counts them apart from the tests that ran. Each test that ran runs in its
// own process with its own timeout, so a hang or panic costs one test.
//
// Usage, from anywhere in the repository:
//
//	go run ./integration/portedsuite [-run REGEXP] [-timeout 120s] [-race] [-keep] [-v]
//
// The stub listens on a free loopback port, which replaces the official
// tests' pulsar://localhost:6650. It needs the Go module proxy (for the
// official client's source). The report counts tests per feature of the
// census (integration/official-suite-census.tsv) and ends with
// "N passed, N failed, N skipped".
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

const (
	officialModule  = "github.com/apache/pulsar-client-go"
	officialVersion = "v0.19.0"
	sdkModule       = "github.com/pulsargo/sdk"
	portedPrefix    = "official_"
)

// config is what one run does; the flags of main set it.
type config struct {
	root    string         // pulsargo's module root; "" finds it
	run     *regexp.Regexp // the tests to run; nil: all that compile
	timeout time.Duration  // per test
	race    bool           // build with -race
	keep    bool           // keep the work directory
	verbose bool           // print every test's output, not only failures'
	out     io.Writer      // progress and failures
}

func main() {
	var c config
	var run string
	flag.StringVar(&c.root, "root", "", "pulsargo's repository root (default: the nearest directory above the working directory whose go.mod is "+sdkModule+")")
	flag.StringVar(&run, "run", "", "run only the tests matching this regexp (default: all that compile)")
	flag.DurationVar(&c.timeout, "timeout", 120*time.Second, "timeout of each test")
	flag.BoolVar(&c.race, "race", false, "build the tests with -race")
	flag.BoolVar(&c.keep, "keep", false, "keep the work directory and print its path")
	flag.BoolVar(&c.verbose, "v", false, "print each test's output")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("portedsuite: ")
	if run != "" {
		re, err := regexp.Compile(run)
		if err != nil {
			log.Fatalf("-run: %v", err)
		}
		c.run = re
	}
	c.out = os.Stdout
	s, err := runSuite(c)
	if err != nil {
		log.Fatal(err)
	}
	report(os.Stdout, s)
}

// suite is the outcome of a run: the tests that ran, the tests that did
// not compile against pulsargo, and what each needs from a broker.
type suite struct {
	results []result
	pruned  []string
	census  map[string][]string
}

func runSuite(c config) (suite, error) {
	var s suite
	root, err := findRoot(c.root)
	if err != nil {
		return s, err
	}
	logf := func(format string, args ...any) { fmt.Fprintf(c.out, "portedsuite: "+format+"\n", args...) }
	work, err := os.MkdirTemp("", "portedsuite-")
	if err != nil {
		return s, err
	}
	if c.keep {
		logf("work directory: %s", work)
	} else {
		defer os.RemoveAll(work)
	}

	official, err := officialDir()
	if err != nil {
		return s, err
	}
	sdk := filepath.Join(work, "sdk")
	if err := copyTree(root, sdk, func(rel string) bool {
		return rel == ".git" || rel == "integration" || strings.HasPrefix(rel, "pulsar/") && strings.HasSuffix(rel, "_test.go")
	}); err != nil {
		return s, err
	}
	if out, err := goCmd(sdk, "mod", "tidy").CombinedOutput(); err != nil {
		return s, fmt.Errorf("go mod tidy in the work copy: %v\n%s", err, out)
	}
	stub, err := startStub(root, work)
	if err != nil {
		return s, err
	}
	defer stub.stop()
	pkg := filepath.Join(sdk, "pulsar")
	ported, err := portTests(official, pkg, sdk, stub.url)
	if err != nil {
		return s, err
	}
	if err := prune(pkg, portedPrefix, logf); err != nil {
		return s, err
	}
	bin := filepath.Join(work, "ported.test")
	args := []string{"test", "-c", "-o", bin}
	if c.race {
		args = append(args, "-race")
	}
	if out, err := goCmd(pkg, append(args, ".")...).CombinedOutput(); err != nil {
		return s, fmt.Errorf("build ported tests: %v\n%s", err, out)
	}
	kept, err := listTests(bin, pkg)
	if err != nil {
		return s, err
	}
	s.census = loadCensus(root)
	keptSet := map[string]bool{}
	for _, name := range kept {
		keptSet[name] = true
		if c.run != nil && !c.run.MatchString(name) {
			continue
		}
		r := runOne(bin, pkg, name, c.timeout)
		if c.verbose || r.status == "FAIL" {
			fmt.Fprintf(c.out, "=== %s %s (%.1fs)\n%s", r.status, name, r.seconds, indent(r.tail))
		}
		s.results = append(s.results, r)
	}
	for _, name := range ported {
		if !keptSet[name] && (c.run == nil || c.run.MatchString(name)) {
			s.pruned = append(s.pruned, name)
		}
	}
	return s, nil
}

// findRoot returns dir, or when it is empty the nearest directory at or
// above the working directory, if it is pulsargo's module root.
func findRoot(dir string) (string, error) {
	isRoot := func(d string) bool {
		mod, err := os.ReadFile(filepath.Join(d, "go.mod"))
		return err == nil && strings.HasPrefix(string(mod), "module "+sdkModule+"\n")
	}
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil || !isRoot(abs) {
			return "", fmt.Errorf("-root %s is not the module root of %s", dir, sdkModule)
		}
		return abs, nil
	}
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for !isRoot(d) {
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("no directory above the working directory is the module root of %s; give -root", sdkModule)
		}
		d = up
	}
	return d, nil
}

// officialDir downloads the official client's module and returns its
// directory in the module cache.
func officialDir() (string, error) {
	out, err := goCmd(os.TempDir(), "mod", "download", "-json", officialModule+"@"+officialVersion).Output()
	if err != nil {
		return "", fmt.Errorf("download %s@%s: %w", officialModule, officialVersion, cmdErr(err))
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		return "", fmt.Errorf("download %s: %s %v", officialModule, m.Error, err)
	}
	return m.Dir, nil
}

// officialServiceURL is the broker address the official tests use; the port
// points it at the stub's.
const officialServiceURL = "pulsar://localhost:6650"

// portTests copies the official pulsar package's test files into pkg with
// portedPrefix, points their imports at the SDK and their service URL at
// the stub's, and returns the names of the tests they declare.
func portTests(official, pkg, sdk, stubURL string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(official, "pulsar", "*_test.go"))
	if err != nil {
		return nil, err
	}
	resolvable, err := requiredModules(sdk)
	if err != nil {
		return nil, err
	}
	keep := func(path string) bool {
		first, _, _ := strings.Cut(path, "/")
		if !strings.Contains(first, ".") {
			return true // standard library
		}
		for _, m := range resolvable {
			if m == officialModule {
				continue // its packages are what the port replaces
			}
			if path == m || strings.HasPrefix(path, m+"/") {
				return true
			}
		}
		return false
	}
	var names []string
	testFunc := regexp.MustCompile(`(?m)^func (Test\w+)\(\w+ \*testing\.T\)`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, m := range testFunc.FindAllSubmatch(src, -1) {
			names = append(names, string(m[1]))
		}
		src = []byte(strings.ReplaceAll(string(src), officialServiceURL, stubURL))
		dst := filepath.Join(pkg, portedPrefix+filepath.Base(f))
		if err := os.WriteFile(dst, src, 0o644); err != nil {
			return nil, err
		}
		if err := rewriteImports(dst, sdk, keep); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	return names, nil
}

// requiredModules lists the work module's own path and the modules its
// go.mod requires: the imports a ported file may keep.
func requiredModules(sdk string) ([]string, error) {
	out, err := goCmd(sdk, "list", "-m", "-f", "{{.Path}}", "all").Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m all: %w", cmdErr(err))
	}
	return strings.Fields(string(out)), nil
}

func listTests(bin, dir string) ([]string, error) {
	cmd := exec.Command(bin, "-test.list", "^Test")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("list ported tests: %w", err)
	}
	return strings.Fields(string(out)), nil
}

type result struct {
	name, status string // PASS, FAIL or SKIP
	seconds      float64
	tail         string // the end of the output, for a failure
}

func runOne(bin, dir, name string, timeout time.Duration) result {
	start := time.Now()
	cmd := exec.Command(bin, "-test.run", "^"+name+"$", "-test.v", "-test.timeout", timeout.String())
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	r := result{name: name, seconds: time.Since(start).Seconds(), tail: lastLines(out, 40)}
	switch {
	case strings.Contains(string(out), "--- SKIP: "+name):
		r.status = "SKIP"
	case err == nil && strings.Contains(string(out), "--- PASS: "+name):
		r.status = "PASS"
	default:
		r.status = "FAIL"
	}
	return r
}

// stub is cmd/brokerstub running on a free loopback port.
type stub struct {
	cmd *exec.Cmd
	url string // pulsar://127.0.0.1:PORT
}

func startStub(root, work string) (*stub, error) {
	bin := filepath.Join(work, "brokerstub")
	if out, err := goCmd(root, "build", "-o", bin, "./cmd/brokerstub").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build brokerstub: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-max-message-size", "1048576", "-log-level", "error")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "brokerstub: listening on ") {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("brokerstub did not start: %q %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	fields := strings.Fields(line)
	return &stub{cmd: cmd, url: fields[len(fields)-1]}, nil
}

func (s *stub) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// cmdErr adds a failed command's standard error to its error.
func cmdErr(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
	}
	return err
}

func goCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	return cmd
}

// copyTree copies the regular files under src to dst, leaving out the
// paths (relative, slash-separated) that skip reports.
func copyTree(src, dst string, skip func(rel string) bool) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel != "." && skip(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n") + "\n"
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ") + "\n"
}
