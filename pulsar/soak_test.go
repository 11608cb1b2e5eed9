package pulsar

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
)

// TestSoak is the churn soak of issue #38 against an in-process stub with a
// data dir: producers (plain, batching, chunking 1-3 MiB), consumers of all
// four subscription types with acks, nacks and messages left unacked,
// readers with seeks, topic deletes and partitioned topics through the
// admin API, over a rotating set of topic names. Every payload is checked
// by SHA-256 (soakPayload), every ack must succeed, every seek land on the
// documented message; the live heap stays within twice the stored data plus
// 256 MiB (the bound for the stub's memory, here for the stub and
// client together); goroutines, fds and the live heap are flat after
// warm-up and come back to their baseline once every topic is deleted.
//
// By default it runs a 10 s slice (CI), sampled every second so that the
// halves after warm-up still compare several samples each; -soak=12m or
// PULSARGO_SOAK=12m runs longer, with more topic names and the stub's
// default cache budget, and logs a sample of the figures every 15 s. (The
// slice was 20 s: with four workers it held both cores of a CI machine for
// all of it, in the package that takes longest.)
func TestSoak(t *testing.T) {
	d, long := soakDuration(t)
	cfg := soakConfig{
		run: d, workers: 4, names: 40, sampleEvery: time.Second,
		cache: 32 << 20, chunkMsgs: [2]int{2, 4},
	}
	if long {
		cfg.names, cfg.sampleEvery, cfg.cache, cfg.chunkMsgs = 200, 15*time.Second, 0, [2]int{3, 8}
	}
	runSoak(t, cfg, long)
}

// soakFlag is -soak: how long TestSoak runs instead of its CI slice.
var soakFlag = flag.Duration("soak", 0, "run TestSoak this long (e.g. 12m) instead of its 10 s CI slice; or PULSARGO_SOAK")

func soakDuration(t *testing.T) (time.Duration, bool) {
	d := *soakFlag
	if v := os.Getenv("PULSARGO_SOAK"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatalf("PULSARGO_SOAK=%q: %v", v, err)
		}
	}
	if d > 0 {
		return d, true
	}
	if testing.Short() {
		t.Skip("the soak's CI slice takes 10 s")
	}
	return 10 * time.Second, false
}

type soakConfig struct {
	run         time.Duration
	workers     int // scenarios running at once
	names       int // rotating topic names
	sampleEvery time.Duration
	cache       int64  // stub's EntryCacheSize; 0 for its default
	chunkMsgs   [2]int // chunked messages per scenario, min and max
}

// soakCounters are the soak's totals.
type soakCounters struct {
	scenarios, sent, received, bytes, acks, ackErrs, nacks, unacked   atomic.Int64
	dups, integrity, seeks, deletes, partitioned, readers, stubErrors atomic.Int64
}

type soak struct {
	t        *testing.T
	cfg      soakConfig
	long     bool
	b        *brokerstub.Broker
	c        Client
	admin    string
	http     *http.Client
	dataFile string
	start    time.Time
	deadline time.Time
	names    chan string
	seq      atomic.Uint64
	n        soakCounters

	mu   sync.Mutex
	errs []string // unexpected errors (the first 20)
	nErr int
}

// fail records an unexpected error; the soak fails at its end.
func (s *soak) fail(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nErr++
	if len(s.errs) < 20 {
		s.errs = append(s.errs, fmt.Sprintf("%s: ", time.Since(s.start).Round(time.Millisecond))+fmt.Sprintf(format, args...))
	}
}

// stubErrors counts the stub's Error logs (each an unexpected error).
type stubErrors struct {
	slog.Handler
	s *soak
}

func (h stubErrors) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError {
		h.s.n.stubErrors.Add(1)
		h.s.fail("stub: %s", r.Message)
	}
	return nil
}

func (h stubErrors) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }

func runSoak(t *testing.T, cfg soakConfig, long bool) {
	dir := t.TempDir()
	s := &soak{t: t, cfg: cfg, long: long, http: &http.Client{Timeout: 30 * time.Second},
		dataFile: filepath.Join(dir, "brokerstub.db"), names: make(chan string, cfg.names)}
	b, err := brokerstub.Start(brokerstub.Options{
		DataDir:               dir,
		EntryCacheSize:        cfg.cache,
		LedgerRolloverEntries: 1000, // so that ledgers roll and trim within a scenario
		Logger:                slog.New(stubErrors{Handler: slog.DiscardHandler, s: s}),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s.b, s.admin = b, b.WebServiceURL()
	for i := range cfg.names {
		s.names <- fmt.Sprintf("soak-%d", i)
	}
	runtime.GC()
	s.start = time.Now()
	base := s.sample()
	c, err := NewClient(ClientOptions{URL: b.URL(), OperationTimeout: 30 * time.Second, Logger: clientLogger()})
	if err != nil {
		t.Fatal(err)
	}
	s.c = c
	s.deadline = s.start.Add(cfg.run)

	samples := []soakSample{base}
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(cfg.sampleEvery)
		defer tick.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-tick.C:
				m := s.sample()
				samples = append(samples, m)
				t.Log(m)
				s.checkMemory(m)
			}
		}
	}()
	var wg sync.WaitGroup
	for w := range cfg.workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			for time.Now().Before(s.deadline) {
				s.runScenario(rng)
			}
		})
	}
	wg.Wait()
	close(stopSampling)
	<-sampled
	loaded := s.sample()
	t.Logf("end of load: %s", loaded)
	s.heapProfile("loaded")
	c.Close()
	// Every topic deleted: the stub gives back what it held.
	for i := range cfg.names {
		if err := s.deleteTopic(fmt.Sprintf("soak-%d", i)); err != nil {
			s.fail("final delete: %v", err)
		}
	}
	after := s.settle(base)
	t.Logf("after deleting every topic: %s", after)
	s.heapProfile("deleted")
	s.report(samples, base, loaded, after)
}

// heapProfile writes a heap profile to $PULSARGO_SOAK_PROFILE/soak-<when>.heap
// when that is set (go tool pprof -sample_index=inuse_space).
func (s *soak) heapProfile(when string) {
	dir := os.Getenv("PULSARGO_SOAK_PROFILE")
	if dir == "" {
		return
	}
	runtime.GC()
	f, err := os.Create(filepath.Join(dir, "soak-"+when+".heap"))
	if err != nil {
		s.t.Log(err)
		return
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		s.t.Log(err)
	}
}

// runScenario runs one scenario on a name from the rotating set: its topic
// is deleted first if a scenario before left it, and after, unless this one
// leaves it (with its unacked messages) for the next.
func (s *soak) runScenario(rng *rand.Rand) {
	name := <-s.names
	defer func() { s.names <- name }()
	if err := s.deleteTopic(name); err != nil {
		s.fail("delete %s: %v", name, err)
		return
	}
	k := rng.IntN(10)
	// The first three scenarios are one of each kind, however few a short
	// slice on a busy machine runs; then the mix is random.
	switch s.n.scenarios.Add(1) {
	case 1:
		k = 0
	case 2:
		k = 6
	case 3:
		k = 8
	}
	switch {
	case k < 6:
		s.queueScenario(rng, name, SubscriptionType(rng.IntN(4)), soakMode(rng.IntN(3)))
	case k < 8:
		s.readerScenario(rng, name, soakMode(rng.IntN(3)))
	default:
		s.partitionedScenario(rng, name)
	}
	if rng.IntN(10) < 6 {
		if err := s.deleteTopic(name); err != nil {
			s.fail("delete %s: %v", name, err)
		}
	}
}

// checkMemory applies the bound (stub RSS <= 2x stored + 256 MiB)
// to the live heap of this process, stub and client together.
func (s *soak) checkMemory(m soakSample) {
	if limit := 2*m.stored + 256<<20; m.heapLive > limit {
		s.fail("live heap %s over 2x the stored %s + 256 MiB", mib(m.heapLive), mib(m.stored))
	}
}

// settle waits (up to 20 s) for goroutines and fds to come back to their
// baseline once the clients and topics are gone, and returns the sample.
func (s *soak) settle(base soakSample) soakSample {
	var m soakSample
	for range 200 {
		runtime.GC()
		m = s.sample()
		if m.goroutines <= base.goroutines+soakGoroutineSlack && m.fds <= base.fds+soakFDSlack {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	return m
}

// Tolerances. After the load, with every topic deleted and the client
// closed, the process must come back to its baseline, less a few
// goroutines and fds that the HTTP client's idle connections and the
// runtime may keep (timers, the admin server's keep-alive). During the
// load, the scenario mix is random, so goroutines (4 per consumer or
// producer at most, up to 4 scenarios of 3 consumers and partitions), fds
// and the heap vary with what is in flight: the later half of the run may
// exceed the earlier half's peak by half again plus a constant, well below
// what a leak of one goroutine, fd or MiB per scenario adds over a run of
// hundreds of scenarios.
const (
	soakGoroutineSlack = 8
	soakFDSlack        = 4
	soakWarmup         = 0.25 // share of the run before samples count
)

// report logs the totals and fails the test on any unexpected error, lost
// or corrupted message, or growth.
func (s *soak) report(samples []soakSample, base, loaded, after soakSample) {
	t := s.t
	n := &s.n
	t.Logf("scenarios %d (readers %d, partitioned %d), sent %d, received %d (%s), acks %d, failed acks %d, nacks %d, left unacked %d, duplicates %d, integrity failures %d, seeks %d, deletes %d, stub errors %d",
		n.scenarios.Load(), n.readers.Load(), n.partitioned.Load(), n.sent.Load(), n.received.Load(), mib(n.bytes.Load()),
		n.acks.Load(), n.ackErrs.Load(), n.nacks.Load(), n.unacked.Load(), n.dups.Load(), n.integrity.Load(), n.seeks.Load(), n.deletes.Load(), n.stubErrors.Load())
	s.mu.Lock()
	for _, e := range s.errs {
		t.Error(e)
	}
	if s.nErr > len(s.errs) {
		t.Errorf("... and %d more unexpected errors", s.nErr-len(s.errs))
	}
	s.mu.Unlock()
	if n.scenarios.Load() == 0 || n.received.Load() == 0 {
		t.Fatal("the soak ran no scenario")
	}
	if after.goroutines > base.goroutines+soakGoroutineSlack || after.fds > base.fds+soakFDSlack {
		t.Errorf("after every topic was deleted: %d goroutines, %d fds; at the start %d and %d", after.goroutines, after.fds, base.goroutines, base.fds)
	}
	if limit := int64(64 << 20); after.file > limit {
		t.Errorf("data file %s after every topic was deleted (at the end of the load %s); want <= 64 MiB", mib(after.file), mib(loaded.file))
	}
	var early, late soakSample
	warm := time.Duration(float64(s.cfg.run) * soakWarmup)
	mid := warm + (s.cfg.run-warm)/2
	for _, m := range samples {
		switch {
		case m.at < warm:
		case m.at < mid:
			early = peak(early, m)
		default:
			late = peak(late, m)
		}
	}
	if early.at == 0 || late.at == 0 {
		return // too short to compare halves
	}
	grew := late.goroutines > early.goroutines*3/2+50 || late.fds > early.fds+20 || late.heapLive > early.heapLive*3/2+64<<20
	// Resident memory only in long runs: in the CI slice, under -race, the
	// race detector's shadow memory grows with everything allocated.
	grew = grew || s.long && late.rssAnon > early.rssAnon*3/2+128<<20
	if grew {
		t.Errorf("growth after warm-up: peaks of the earlier half %s, of the later half %s", early, late)
	}
}

// peak returns the larger of each figure.
func peak(a, b soakSample) soakSample {
	return soakSample{at: max(a.at, b.at), goroutines: max(a.goroutines, b.goroutines), fds: max(a.fds, b.fds),
		rss: max(a.rss, b.rss), rssAnon: max(a.rssAnon, b.rssAnon), heapLive: max(a.heapLive, b.heapLive), stored: max(a.stored, b.stored),
		file: max(a.file, b.file), topics: max(a.topics, b.topics)}
}
