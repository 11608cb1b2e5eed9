package brokerstub

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// mutationEnv enables TestSeedMutations, which runs `go test` several times
// and takes a minute or two.
const mutationEnv = "PULSARGO_MUTATION"

// seedMutation removes the code that prevents one seed scenario; the seed
// tests named in fails must fail with it.
type seedMutation struct {
	seed     string // the upstream scenario
	file     string // relative to brokerstub/
	old, new string // old occurs exactly once in file
	fails    map[string][]string
}

// seedTests are the tests reproducing a seed scenario, per package
// (relative to brokerstub/).
var seedTests = map[string][]string{
	".": {"TestKeySharedPIP282Scenario1", "TestKeySharedPIP282Scenario2", "TestKeyShared10762", "TestSeedPartialBatchAckSurvivesCrash",
		// #38: the entry cache (internal/engine/retention.go, topic.go)
		"TestEntryCacheReadsBackFromDataDir", "TestEntryCacheDropsAcknowledged",
		// #31: hostile input (hostile_test.go)
		"TestHostileHalfFrames", "TestHostilePingsNeverRead", "TestHostileListeners", "TestHostileEmptyPortsDisablePlaintext",
		"TestHostilePasswordGuessing", "TestHostileTokenNotBefore",
		// #35: what pauses a client's reads (outq.go)
		"TestDeliveriesDoNotPauseReads", "TestAnswersPastHighWaterMarkDoNotPauseByDefault"},
	"./internal/ledger":    {"TestArenaSlabsStayWithinTwiceTheirEntries"},
	"./internal/store":     {"TestBoltFileFollowsLiveData", "TestBoltGivesBackMappedPages"},
	"./internal/keyshared": {"TestSimPIP282Scenario1", "TestSimPIP282Scenario2", "TestSim10762", "TestSimBlockedHashIsCountedOncePerPass"},
	"./internal/cursor":    {"TestSeedPartialBatchAckSurvivesCrash"},
	"../pulsar":            {"TestSeekMultiTopic", "TestConsumerMaxPendingChunkedBytes", "TestConsumerReceiveStream", "TestStreamNackMidStream"},
	// #33.4: streaming receive (streaming.go)
	"../internal/consumer": {"TestStreamWindowBoundsHeldChunks", "TestLyingChunkSizes"},
	"../internal/wire":     {"TestReaderBufferGrowsWithArrivingBytes"},
}

var seedMutations = []seedMutation{{
	seed: "PIP-282 issue 1 (1:6..1:11): a joining consumer gets a key its old owner still holds",
	file: "internal/keyshared/keyshared.go",
	old:  "\tk.registerDraining(before) // PIP-282's first scenario: moved hashes drain first\n",
	new:  "\t_ = before\n",
	fails: map[string][]string{
		".":                    {"TestKeySharedPIP282Scenario1"},
		"./internal/keyshared": {"TestSimPIP282Scenario1"},
	},
}, {
	seed: "PIP-282 issue 2 (2:1, 2:2): a replayed entry goes to the new owner while the old one holds an earlier one",
	file: "internal/keyshared/route.go",
	old:  "\t\t} else if k.draining.ShouldBlock(id, e.Hash) {\n\t\t\tp.block(e.Hash)\n\t\t\treturn 0, false\n\t\t}\n",
	new:  "\t\t}\n",
	fails: map[string][]string{
		".":                    {"TestKeySharedPIP282Scenario2"},
		"./internal/keyshared": {"TestSimPIP282Scenario2"},
	},
}, {
	seed: "apache/pulsar#10762: a new entry overtakes a replay entry of its key",
	file: "internal/keyshared/route.go",
	old:  "\t\t\ti++ // go on past it: see above (apache/pulsar#10762)\n\t\t\tcontinue\n",
	new:  "\t\t\tbreak\n",
	fails: map[string][]string{
		".":                    {"TestKeyShared10762"},
		"./internal/keyshared": {"TestSim10762"},
	},
}, {
	seed: "apache/pulsar#10762, read first: new entries are read before the replay sweep",
	file: "internal/keyshared/route.go",
	old:  "\tpass := k.NewPass()\n\tfor i := 0; i < k.replay.Len(); {\n",
	new: "\tpass := k.NewPass()\n\tfor k.NormalReadAllowed() {\n\t\tp, e, ok := src.Next()\n\t\tif !ok {\n\t\t\tbreak\n\t\t}\n" +
		"\t\tif id, ok := pass.Route(e, false); ok {\n\t\t\tsrc.Send(id, p, e)\n\t\t\tk.Delivered(id, e)\n" +
		"\t\t} else {\n\t\t\tk.replay.Add(p, e.Hash)\n\t\t}\n\t}\n\tfor i := 0; i < k.replay.Len(); {\n",
	fails: map[string][]string{
		".":                    {"TestKeyShared10762"},
		"./internal/keyshared": {"TestSim10762"},
	},
}, {
	seed: "a held-back hash is asked of the draining tracker again for every later entry of the pass",
	file: "internal/keyshared/route.go",
	old:  "\tif p.blocked[e.Hash] { // held back: nothing overtakes within the hash\n\t\treturn 0, false\n\t}\n",
	new:  "",
	fails: map[string][]string{
		"./internal/keyshared": {"TestSimBlockedHashIsCountedOncePerPass"},
	},
}, {
	seed: "a refused entry does not hold its hash back for the rest of the pass (Pass.block records nothing)",
	file: "internal/keyshared/route.go",
	old:  "\tif p.blocked == nil {\n\t\tp.blocked = map[int32]bool{}\n\t}\n\tp.blocked[h] = true\n",
	new:  "",
	fails: map[string][]string{
		"./internal/keyshared": {"TestSimBlockedHashIsCountedOncePerPass"},
	},
}, {
	seed: "apache/pulsar#26498: a partial batch ack does not mark the cursor dirty",
	file: "internal/cursor/cursor.go",
	old:  "\t\t\tc.changed() // a bitmap-only change is a change (apache/pulsar#26498)\n",
	new:  "",
	fails: map[string][]string{
		".":                 {"TestSeedPartialBatchAckSurvivesCrash"},
		"./internal/cursor": {"TestSeedPartialBatchAckSurvivesCrash"},
	},
}, {
	seed: "a multi-topic consumer's Seek to an id moves every topic, not the one that delivered it",
	file: "../pulsar/consumer_impl.go",
	old:  "\tif isEdge(id) {\n\t\treturn cs.forAll(",
	new:  "\tif isEdge(id) || id != nil {\n\t\treturn cs.forAll(",
	fails: map[string][]string{
		"../pulsar": {"TestSeekMultiTopic"},
	},
}, {
	seed: "ConsumerOptions.MaxPendingChunkedBytes does not reach the consumer engine",
	file: "../pulsar/consumer_engine.go",
	old:  "\t\tMaxPendingBytes:    opts.MaxPendingChunkedBytes,\n",
	new:  "",
	fails: map[string][]string{
		"../pulsar": {"TestConsumerMaxPendingChunkedBytes", "TestConsumerReceiveStream"},
	},
}, {
	seed:  "#33.4: a stream's window does not hold back the broker's permits",
	file:  "../internal/consumer/streaming.go",
	old:   "\tif len(e.streamList) == 0 {\n\t\treturn false\n\t}\n\tif e.state != stateReady",
	new:   "\tif true {\n\t\treturn false\n\t}\n\tif e.state != stateReady",
	fails: map[string][]string{"../internal/consumer": {"TestStreamWindowBoundsHeldChunks"}},
}, {
	seed:  "#33.4: a chunk 0 claiming more than its chunks can hold starts a stream",
	file:  "../internal/consumer/streaming.go",
	old:   "\t\tint64(n)*num < total || int64(n)*(num-1) >= total ||\n",
	new:   "\t\ttotal < 0 ||\n",
	fails: map[string][]string{"../internal/consumer": {"TestLyingChunkSizes"}},
}, {
	seed:  "#33.4: a Nack of a stream still receiving does not give it back",
	file:  "../internal/consumer/redeliver.go",
	old:   "\tif t == nil || t.stream == nil || t.stream.done {",
	new:   "\tif true {",
	fails: map[string][]string{"../pulsar": {"TestStreamNackMidStream"}},
}, {
	seed: "issue #38: a topic's slabs keep their 32 MiB size across ledgers",
	file: "internal/ledger/arena.go",
	old:  "\t\ta.next = firstSlab\n",
	new:  "",
	fails: map[string][]string{
		"./internal/ledger": {"TestArenaSlabsStayWithinTwiceTheirEntries"},
	},
}, {
	seed: "issue #38: acknowledged entries stay in memory with a data dir",
	file: "internal/engine/retention.go",
	old:  "\t\tt.Led.DropConsumed(slowest)\n",
	new:  "",
	fails: map[string][]string{
		".": {"TestEntryCacheDropsAcknowledged"},
	},
}, {
	seed: "issue #38: an unloaded or deleted topic keeps its share of the entry cache",
	file: "internal/engine/topic.go",
	old:  "\tt.Led.Close() // its bytes leave the entry cache (internal/ledger/cache.go)\n",
	new:  "",
	fails: map[string][]string{
		".": {"TestEntryCacheReadsBackFromDataDir"},
	},
}, {
	seed: "issue #38: the data file never shrinks after deletes",
	file: "internal/store/bolt_compact.go",
	old:  "\t\tif s.compactDue() {\n",
	new:  "\t\tif false {\n",
	fails: map[string][]string{
		"./internal/store": {"TestBoltFileFollowsLiveData"},
	},
}, {
	seed: "issue #38: pages of the data file read back stay in the stub's RSS",
	file: "internal/store/bolt_compact.go",
	old:  "\t\ts.releaseMapped()\n",
	new:  "",
	fails: map[string][]string{
		"./internal/store": {"TestBoltGivesBackMappedPages"},
	},
}, {
	seed:  "#31 V3: a 5 MiB frame is read before CONNECT",
	file:  "internal/protocol/conn.go",
	old:   "r := wire.NewReader(c.nc, c.b.Cfg.MaxFrameSizeBeforeConnect)",
	new:   "r := wire.NewReader(c.nc, c.b.Cfg.MaxMessageSize+wire.FramePadding)",
	fails: map[string][]string{".": {"TestHostileHalfFrames"}},
}, {
	seed: "#31 V3: a frame's buffer is allocated at the size it claims",
	file: "../internal/wire/reader_grow.go",
	old:  "\tif n <= growDirect {\n",
	new:  "\tif true {\n",
	fails: map[string][]string{
		".":                {"TestHostileHalfFrames"},
		"../internal/wire": {"TestReaderBufferGrowsWithArrivingBytes"},
	},
}, {
	seed:  "#31 V4: the broker reads a client whose outbound queue is past the bound",
	file:  "internal/protocol/conn.go",
	old:   "if !c.Sends.Wait(c.done) || !c.Outq.Wait(c.done) || !c.pubHold.Wait(c.done) {",
	new:   "if !c.Sends.Wait(c.done) || !c.pubHold.Wait(c.done) {",
	fails: map[string][]string{".": {"TestHostilePingsNeverRead"}},
}, {
	seed:  "#35: deliveries pause a client's reads (the official client deadlocked on 1,000 partitions)",
	file:  "internal/protocol/outq.go",
	old:   "\tif f.delivery {\n\t\treturn 0\n\t}\n",
	new:   "",
	fails: map[string][]string{".": {"TestDeliveriesDoNotPauseReads"}},
}, {
	seed:  "#35: reads pause at the high-water mark without pulsarChannelPauseReceivingRequestsIfUnwritable",
	file:  "internal/protocol/outq.go",
	old:   "if o.PauseReceivingIfUnwritable {",
	new:   "if true {",
	fails: map[string][]string{".": {"TestAnswersPastHighWaterMarkDoNotPauseByDefault"}},
}, {
	seed:  "#31 V5: one accept error stops the binary port",
	file:  "broker.go",
	old:   "if errors.Is(err, net.ErrClosed) || b.isClosed() {",
	new:   "if errors.Is(err, err) {", // any error; errors stays imported
	fails: map[string][]string{".": {"TestHostileListeners"}},
}, {
	seed:  "#31 V6: an empty brokerServicePort keeps the plaintext port",
	file:  "config.go",
	old:   "o.DisableBrokerServicePort = empty[\"brokerServicePort\"]",
	new:   "o.DisableBrokerServicePort = false",
	fails: map[string][]string{".": {"TestHostileEmptyPortsDisablePlaintext"}},
}, {
	seed:  "#31 V7: a failed CONNECT leaves the connection open for the next guess",
	file:  "internal/protocol/conn.go",
	old:   "\tc.lingering.Store(true)\n\tc.push(outFrame{header: frame, last: true})\n",
	new:   "\tc.push(outFrame{header: frame})\n",
	fails: map[string][]string{".": {"TestHostilePasswordGuessing"}},
}, {
	seed:  "#31 V8: a token's nbf is not checked",
	file:  "internal/auth/auth.go",
	old:   "if now.Before(id.NotBefore) {",
	new:   "if false {",
	fails: map[string][]string{".": {"TestHostileTokenNotBefore"}},
}}

// TestSeedMutations proves that each seed test can fail: for each mutation
// it builds the packages with the guard removed (go test -overlay, so no
// file is changed) and expects the seed tests named for it to fail. Every
// seed test of those packages runs, and the log shows which others fail
// too. Run it with PULSARGO_MUTATION=1 go test -run TestSeedMutations -v
// ./brokerstub/. With PULSARGO_MUTATION=N (N > 1) only the named tests run,
// N times each, and each must fail all N times: a seed test that catches
// its mutant only sometimes does not guard it.
func TestSeedMutations(t *testing.T) {
	if os.Getenv(mutationEnv) == "" {
		t.Skipf("set %s=1 to run the seed mutation check", mutationEnv)
	}
	runs, err := strconv.Atoi(os.Getenv(mutationEnv))
	if err != nil || runs < 1 {
		t.Fatalf("%s=%q: want a number of runs, 1 or more", mutationEnv, os.Getenv(mutationEnv))
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the mutation check runs go test: %v", err)
	}
	for _, m := range seedMutations {
		t.Run(m.file+": "+m.seed, func(t *testing.T) {
			path, err := filepath.Abs(m.file)
			if err != nil {
				t.Fatal(err)
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(src), m.old); n != 1 {
				t.Fatalf("the guard occurs %d times in %s, want once: update the mutation", n, m.file)
			}
			dir := t.TempDir()
			mutated := filepath.Join(dir, filepath.Base(m.file))
			if err := os.WriteFile(mutated, []byte(strings.Replace(string(src), m.old, m.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {path: mutated}})
			overlayFile := filepath.Join(dir, "overlay.json")
			if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("mutation: %s: remove\n%s", m.file, m.old)
			for pkg, want := range m.fails {
				names := seedTests[pkg]
				if runs > 1 {
					names = want
				}
				run := "^(" + strings.Join(names, "|") + ")$"
				cmd := exec.Command(goBin, "test", "-count="+strconv.Itoa(runs), "-overlay="+overlayFile, "-run", run, pkg)
				out, err := cmd.CombinedOutput()
				if strings.Contains(string(out), "[build failed]") || strings.Contains(string(out), "[setup failed]") {
					t.Fatalf("%s does not build with the mutation:\n%s", pkg, out)
				}
				if err == nil {
					t.Errorf("%s: every seed test passes with the guard removed:\n%s", pkg, out)
					continue
				}
				failed := failedTests(string(out))
				for _, name := range want {
					if failed[name] < runs {
						t.Errorf("%s: %s fails %d of %d runs with the guard removed", pkg, name, failed[name], runs)
					}
				}
				t.Logf("%s: failing: %v\n%s", pkg, sortedKeys(failed), out)
			}
		})
	}
}

var failLine = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

// failedTests returns how many times go test reports each top-level test
// failed (once a run; its subtests are not counted apart).
func failedTests(out string) map[string]int {
	got := map[string]int{}
	for _, m := range failLine.FindAllStringSubmatch(out, -1) {
		if !strings.Contains(m[1], "/") {
			got[m[1]]++
		}
	}
	return got
}

func sortedKeys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestSeedMutationsApply runs in every test run (TestSeedMutations only
// with PULSARGO_MUTATION=1): each mutation's guard must still occur exactly
// once in its file, so that an edit of a guarded file cannot leave a
// mutant that no longer applies until someone runs the slow check.
func TestSeedMutationsApply(t *testing.T) {
	for _, m := range seedMutations {
		src, err := os.ReadFile(m.file)
		if err != nil {
			t.Errorf("%s (%s): %v", m.file, m.seed, err)
			continue
		}
		if n := strings.Count(string(src), m.old); n != 1 {
			t.Errorf("%s (%s): the guard %q occurs %d times, want once: update the mutation", m.file, m.seed, m.old, n)
			continue
		}
		for pkg, want := range m.fails {
			for _, name := range want {
				if !slices.Contains(seedTests[pkg], name) {
					t.Errorf("%s (%s): %s is not in seedTests[%q], so TestSeedMutations never runs it", m.file, m.seed, name, pkg)
				}
			}
		}
		// A mutant that does not build is caught by nothing: the commonest
		// cause is an import whose last use the mutation removes.
		if lost := importsLost(t, string(src), strings.Replace(string(src), m.old, m.new, 1)); len(lost) > 0 {
			t.Errorf("%s (%s): the mutation leaves %v imported and unused: keep a use in new", m.file, m.seed, lost)
		}
	}
}

// importsLost returns the imports that src uses and mutated no longer
// does (or fails the test if mutated does not parse).
func importsLost(t *testing.T, src, mutated string) []string {
	t.Helper()
	used := func(text string) (map[string]bool, []string) {
		f, err := parser.ParseFile(token.NewFileSet(), "", text, 0)
		if err != nil {
			t.Errorf("the mutated file does not parse: %v", err)
			return nil, nil
		}
		var names []string
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			name := path.Base(p)
			if im.Name != nil {
				name = im.Name.Name
			}
			names = append(names, name)
		}
		got := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok {
					got[id.Name] = true
				}
			}
			return true
		})
		return got, names
	}
	before, names := used(src)
	after, _ := used(mutated)
	if after == nil {
		return nil
	}
	var lost []string
	for _, name := range names {
		if before[name] && !after[name] {
			lost = append(lost, name)
		}
	}
	return lost
}
