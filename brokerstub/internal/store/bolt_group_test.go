package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// TestBoltGroupCommitSharesOneSync: appends that arrive while a commit is
// being synced go into the next commit together. The first commit is held
// until 63 other topics' appends wait; they must then take one commit, not
// 63, and every entry must be stored once every append has returned.
func TestBoltGroupCommitSharesOneSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	st := openBolt(t, path)
	bs := st.(*boltStore)
	holding, release := holdFirstCommit(bs)

	const n = 64
	errs := make(chan error, n)
	go func() { errs <- st.AppendEntry("t-0", entry(1, 0)) }()
	<-holding
	for i := 1; i < n; i++ {
		go func() { errs <- st.AppendEntry(fmt.Sprintf("t-%d", i), entry(1, 0)) }()
	}
	for bs.group.waiting.Load() != n-1 {
		runtime.Gosched()
	}
	if got := bs.group.commits.Load(); got != 0 {
		t.Fatalf("%d commits before the first was released", got)
	}
	close(release)
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := bs.group.commits.Load(); got != 2 {
		t.Fatalf("%d commits for %d appends that arrived together, want 2 (the held one and one group)", got, n)
	}
	// Durable: a reopened store has every entry.
	bs.Close()
	re := openBolt(t, path)
	for i := range n {
		var got []StoredEntry
		if err := re.Entries(fmt.Sprintf("t-%d", i), func(e StoredEntry) error { got = append(got, e); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || !sameEntry(got[0], entry(1, 0)) {
			t.Fatalf("topic t-%d after reopen: %+v", i, got)
		}
	}
}

// TestBoltGroupCommitFailsOnlyTheBadEntry: an entry out of order in a group
// fails its own append; the others of the group are stored.
func TestBoltGroupCommitFailsOnlyTheBadEntry(t *testing.T) {
	st := openBolt(t, filepath.Join(t.TempDir(), "s.db"))
	bs := st.(*boltStore)
	if err := st.AppendEntry("bad", entry(1, 5)); err != nil {
		t.Fatal(err)
	}
	holding, release := holdFirstCommit(bs)
	held := make(chan error, 1)
	go func() { held <- st.AppendEntry("good-0", entry(1, 0)) }()
	<-holding
	errs := make(map[string]chan error)
	for _, topic := range []string{"good-1", "bad", "good-2"} {
		ch := make(chan error, 1)
		errs[topic] = ch
		e := entry(1, 0)
		go func() { ch <- st.AppendEntry(topic, e) }()
	}
	for bs.group.waiting.Load() != 3 {
		runtime.Gosched()
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if err := <-errs["bad"]; !errors.Is(err, ErrOutOfOrder) {
		t.Fatalf("out-of-order append in a group: %v, want ErrOutOfOrder", err)
	}
	for _, topic := range []string{"good-1", "good-2"} {
		if err := <-errs[topic]; err != nil {
			t.Fatalf("%s: %v", topic, err)
		}
		n := 0
		_ = st.Entries(topic, func(StoredEntry) error { n++; return nil })
		if n != 1 {
			t.Fatalf("%s has %d entries, want 1", topic, n)
		}
	}
}

// holdFirstCommit makes the committer wait before its first commit until
// release is closed; holding is closed once it waits.
func holdFirstCommit(bs *boltStore) (holding, release chan struct{}) {
	holding, release = make(chan struct{}), make(chan struct{})
	var first sync.Once
	bs.group.beforeCommit = func(int) {
		first.Do(func() {
			close(holding)
			<-release
		})
	}
	return holding, release
}

// TestBoltAppendAfterCloseIsErrClosed: the committer is gone with the store.
func TestBoltAppendAfterCloseIsErrClosed(t *testing.T) {
	st, err := OpenBolt(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := st.AppendEntry("t", entry(1, 0)); !errors.Is(err, ErrClosed) {
		t.Fatalf("append after close: %v, want ErrClosed", err)
	}
}

// BenchmarkBoltAppendParallel appends 1 KiB entries from parallel topics
// (one goroutine each, as the stub's topics): group commit lets them share
// syncs.
func BenchmarkBoltAppendParallel(b *testing.B) {
	st, err := OpenBolt(filepath.Join(b.TempDir(), "s.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	payload := make([]byte, 1024)
	var next sync.Mutex
	topics := 0
	b.SetParallelism(16)
	b.ReportAllocs()
	b.SetBytes(int64(len(payload)))
	b.RunParallel(func(pb *testing.PB) {
		next.Lock()
		topic := fmt.Sprintf("t-%d", topics)
		topics++
		next.Unlock()
		var id int64
		for pb.Next() {
			if err := st.AppendEntry(topic, StoredEntry{Ledger: 1, Entry: id, Payload: payload, NumMessages: 1}); err != nil {
				b.Error(err)
				return
			}
			id++
		}
	})
}

// TestBoltGroupCommitPipelinesOneTopic: one goroutine queues the entries
// of ONE topic with AppendEntryAsync while a commit is being synced; they
// share the next commit, and are reported in order, only after it.
func TestBoltGroupCommitPipelinesOneTopic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	st := openBolt(t, path)
	bs := st.(*boltStore)
	holding, release := holdFirstCommit(bs)

	const n = 64
	var mu sync.Mutex
	var order []int64
	done := make(chan error, n)
	queue := func(i int64) {
		bs.AppendEntryAsync("t", entry(1, i), func(err error) {
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			done <- err
		})
	}
	queue(0)
	<-holding
	for i := int64(1); i < n; i++ {
		queue(i)
	}
	if got := bs.group.waiting.Load(); got != n-1 {
		t.Fatalf("%d appends queued behind the held commit, want %d", got, n-1)
	}
	select {
	case err := <-done:
		t.Fatalf("an append reported (%v) before its commit", err)
	default:
	}
	close(release)
	for range n {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if got := bs.group.commits.Load(); got != 2 {
		t.Fatalf("%d commits for %d entries queued together, want 2", got, n)
	}
	for i, got := range order {
		if got != int64(i) {
			t.Fatalf("outcomes reported in order %v", order)
		}
	}
	bs.Close()
	re := openBolt(t, path)
	want := make([]StoredEntry, n)
	for i := range want {
		want[i] = entry(1, int64(i))
	}
	checkEntries(t, re, "t", want)
}

// TestBoltGroupCommitNoHoleAfterFailure: when an entry of a topic fails,
// the later entries queued for the same ledger fail too (the stored ledger
// has no hole); an entry of a later ledger is stored again.
func TestBoltGroupCommitNoHoleAfterFailure(t *testing.T) {
	st := openBolt(t, filepath.Join(t.TempDir(), "s.db"))
	bs := st.(*boltStore)
	refused := errors.New("refused")
	bs.group.refuse = func(topic string, e StoredEntry) error {
		if e.Ledger == 1 && e.Entry == 2 {
			return refused
		}
		return nil
	}
	holding, release := holdFirstCommit(bs)
	errs := make([]chan error, 5)
	for i := range errs {
		errs[i] = make(chan error, 1)
		bs.AppendEntryAsync("t", entry(1, int64(i)), func(err error) { errs[i] <- err })
		if i == 0 {
			<-holding
		}
	}
	close(release)
	for i, ch := range errs {
		err := <-ch
		switch {
		case i < 2 && err != nil:
			t.Fatalf("entry 1:%d: %v", i, err)
		case i == 2 && !errors.Is(err, refused):
			t.Fatalf("entry 1:2: %v, want the refusal", err)
		case i > 2 && !errors.Is(err, ErrOutOfOrder):
			t.Fatalf("entry 1:%d after the failed 1:2: %v, want ErrOutOfOrder", i, err)
		}
	}
	if err := st.AppendEntry("t", entry(2, 0)); err != nil {
		t.Fatalf("the next ledger: %v", err)
	}
	checkEntries(t, st, "t", []StoredEntry{entry(1, 0), entry(1, 1), entry(2, 0)})
}
