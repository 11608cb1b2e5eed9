package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// goTool returns the go command that runs this test.
func goTool(t testing.TB) string {
	t.Helper()
	goBin, err := exec.LookPath("go") // go test puts GOROOT/bin first in PATH
	if err != nil {
		//lint:ignore SA1019 only a fallback when go is not in PATH
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	return goBin
}

// buildFlags are the go command's -race and -trimpath, each when this test
// binary was built with it (go run ./internal/testrun gives go test both).
// The go commands the tests run to build something (cmd/brokerstub, the
// apiparity programs) build it as this binary was built: its packages are
// then in the build cache already, from this module's own test build,
// instead of being compiled once more in another mode (104 s of CPU for
// cmd/brokerstub alone on a fresh machine); and the brokerstub process is
// race-checked in a race run.
func buildFlags() []string {
	var flags []string
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if (s.Key == "-race" || s.Key == "-trimpath") && s.Value == "true" {
				flags = append(flags, s.Key)
			}
		}
	}
	return flags
}

// sdkRoot is the directory of the github.com/pulsargo/sdk checkout this
// module replaces it with.
func sdkRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(goTool(t), "list", "-m", "-f", "{{.Dir}}", "github.com/pulsargo/sdk").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/pulsargo/sdk: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// runGo runs the go command in dir with the module cache and proxy of the
// caller's environment and returns its standard output.
func runGo(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(goTool(t), args...)
	cmd.Dir = dir
	// -mod=mod lets tidy and list write the scratch go.mod and go.sum;
	// GOWORK=off keeps a go.work above the temp dir out; GOTOOLCHAIN=local
	// never downloads a toolchain. GOPROXY and GOMODCACHE are inherited,
	// and everything needed is already in the cache after this module's
	// own build.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// forbiddenModules are the modules the official client brings in that a
// user of the SDK and brokerstub must never get in their module graph.
var forbiddenModules = []string{
	"github.com/apache/pulsar-client-go",
	"github.com/sirupsen/logrus",
	"github.com/prometheus/",
	"k8s.io/",
}

// TestLeanModuleGraph: a module that requires github.com/pulsargo/sdk and
// imports pulsar and brokerstub builds from at most 8 modules (itself, the
// SDK, protobuf, klauspost/compress, pierrec/lz4, bbolt, x/sys, and
// x/crypto for the bcrypt hashes of brokerstub's basic authentication;
// Avro is the SDK's own internal/avro), the pulsar package alone from at most 6
// third-party modules (issue 17), and its whole module graph holds none of
// the official client's heavy dependencies. The same module also splits
// and reassembles a payload with package chunk.
func TestLeanModuleGraph(t *testing.T) {
	// Independent of other tests (its own stub, or go commands): it runs
	// beside them, so the integration module uses both cores.
	t.Parallel()
	if testing.Short() {
		t.Skip("runs go mod tidy in a scratch module")
	}
	dir := t.TempDir()
	gomod := "module example.com/leanuser\n\ngo 1.26\n\n" +
		"require github.com/pulsargo/sdk v0.0.0\n\n" +
		"replace github.com/pulsargo/sdk => " + sdkRoot(t) + "\n"
	prog := `package main

import (
	"fmt"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar"
)

func main() {
	fmt.Println(brokerstub.Options{}, pulsar.ClientOptions{})
}
`
	for name, text := range map[string]string{"go.mod": gomod, "main.go": prog} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runGo(t, dir, "mod", "tidy")

	// The whole graph: every module any go.mod in it requires (with graph
	// pruning, the SDK's requirements and theirs, one level).
	graph := strings.Fields(runGo(t, dir, "list", "-m", "-f", "{{.Path}}", "all"))
	for _, m := range graph {
		for _, bad := range forbiddenModules {
			if strings.HasPrefix(m, bad) {
				t.Errorf("module graph holds %s", m)
			}
		}
	}
	// 23 when this test was written (bbolt's go.mod alone adds cobra,
	// gofail and x/perf's tools), 27 with x/crypto (bcrypt, for brokerstub's
	// basic authentication: it adds itself and x/net, x/term, x/text); a
	// jump means a heavy dependency crept in.
	const maxGraph = 27
	if len(graph) > maxGraph {
		t.Errorf("go list -m all: %d modules, want at most %d:\n%s", len(graph), maxGraph, strings.Join(graph, "\n"))
	}

	// What the program is built from: the modules its packages come from.
	var built []string
	for _, m := range strings.Fields(runGo(t, dir, "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", ".")) {
		if !slices.Contains(built, m) {
			built = append(built, m)
		}
	}
	const maxBuilt = 8
	if len(built) > maxBuilt {
		t.Errorf("the program is built from %d modules, want at most %d: %v", len(built), maxBuilt, built)
	}

	// The core package's third-party modules: issue 17 keeps them within six.
	var core []string
	for _, m := range strings.Fields(runGo(t, dir, "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", "github.com/pulsargo/sdk/pulsar")) {
		if m != "github.com/pulsargo/sdk" && !slices.Contains(core, m) {
			core = append(core, m)
		}
	}
	const maxCore = 6
	if len(core) > maxCore {
		t.Errorf("package pulsar is built from %d third-party modules, want at most %d: %v", len(core), maxCore, core)
	}
	t.Logf("go list -m all: %d modules; built from %d: %v; pulsar's third-party modules: %d %v", len(graph), len(built), built, len(core), core)

	// Another module splits and reassembles with package chunk alone.
	if err := os.MkdirAll(filepath.Join(dir, "chunkuser"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chunkuser", "main.go"), []byte(chunkUser), 0o644); err != nil {
		t.Fatal(err)
	}
	runGo(t, dir, "mod", "tidy")
	if out := runGo(t, dir, "run", "./chunkuser"); !strings.Contains(out, "reassembled 3158073 bytes intact from 4 chunks") {
		t.Errorf("chunkuser: %s", out)
	}
}

// chunkUser is a program of another module that uses only chunk, messageid
// and the standard library: it splits a payload for a 1 MiB broker limit,
// feeds the chunks to an Assembler as a consumer would (headers read back
// from each chunk's metadata) and checks the message it gets back.
const chunkUser = `package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/messageid"
)

func main() {
	payload := make([]byte, 3<<20+12345)
	for i := range payload {
		payload[i] = byte(i * 31)
	}
	uuid := chunk.UUID("outside", 9)
	size, err := chunk.PayloadSize(1<<20, 200+chunk.MetadataOverhead(uuid))
	if err != nil {
		fail(err)
	}
	chunks, err := chunk.Split("outside", 9, payload, size)
	if err != nil {
		fail(err)
	}
	a := chunk.NewAssembler(chunk.Options{MaxPendingBytes: 16 << 20})
	var msg *chunk.Message
	for i, c := range chunks {
		h := chunk.Header{UUID: c.UUID, ChunkID: c.ChunkID, NumChunks: c.NumChunks, TotalSize: c.TotalSize}
		m, discarded, err := a.Add(chunk.Incoming{Header: h, Payload: c.Payload, ID: messageid.New(5, int64(i), -1, -1, 0)})
		if err != nil || len(discarded) > 0 {
			fail(fmt.Errorf("chunk %d: %v, discarded %v", i, err, discarded))
		}
		if m != nil {
			msg = m
		}
	}
	if msg == nil || !bytes.Equal(msg.Payload, payload) {
		fail(fmt.Errorf("payload not reassembled"))
	}
	fmt.Printf("reassembled %d bytes intact from %d chunks\n", len(msg.Payload), len(msg.ChunkIDs))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "chunkuser:", err)
	os.Exit(1)
}
`
