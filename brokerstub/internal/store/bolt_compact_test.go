package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// waitCompacted waits for a background compaction to end (they run after
// deletes; the store gives no event for it).
func waitCompacted(t *testing.T, st Store) FileUsage {
	t.Helper()
	s := st.(*boltStore)
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.compact.mu.Lock()
		running := s.compact.running
		s.compact.mu.Unlock()
		if !running || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	u, ok := BoltUsage(st)
	if !ok {
		t.Fatal("no usage")
	}
	return u
}

// The data file follows the live data through churn: topics written,
// trimmed, deleted and written again under rotating names, the file stays
// within twice the live data plus the slack, and shrinks after deletes. A
// churn soak saw a bbolt file grow 223 -> 1,484 MiB with flat data, and not
// shrink when every topic was deleted.
func TestBoltFileFollowsLiveData(t *testing.T) {
	const (
		slack    = 1 << 20
		alloc    = 16 << 20 // bbolt grows the file in steps of up to 16 MiB
		valueLen = 32 << 10
	)
	path := filepath.Join(t.TempDir(), "s.db")
	st, err := OpenBoltWith(path, BoltOptions{CompactSlack: slack})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	tr := st.(Trimmer)
	live := map[string]int64{} // bytes of live values per topic
	total := func() (n int64) {
		for _, v := range live {
			n += v
		}
		return n
	}
	payload := bytes.Repeat([]byte{7}, valueLen)
	write := func(topic string, ledger int64, n int) {
		// Queued, so that they share commits (one fsync each otherwise).
		errs := make(chan error, n)
		for i := range n {
			st.(AsyncAppender).AppendEntryAsync(topic, StoredEntry{Ledger: ledger, Entry: int64(i), Payload: payload}, func(err error) { errs <- err })
		}
		for range n {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		live[topic] += int64(n * valueLen)
	}
	check := func(round int) FileUsage {
		u := waitCompacted(t, st)
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if limit := 2*total() + slack + alloc; fi.Size() > limit {
			t.Fatalf("round %d: file %d bytes for %d bytes of live data (limit %d); usage %+v", round, fi.Size(), total(), limit, u)
		}
		return u
	}
	var peak int64
	for round := range 12 {
		// Ten topics under rotating names: each round deletes the oldest
		// three and writes three new ones, and trims the others' oldest
		// ledger, as retention does.
		for k := range 3 {
			name := fmt.Sprintf("t-%d", round*3+k)
			write(name, int64(round*10+1), 10)
			write(name, int64(round*10+2), 10)
		}
		for k := range 3 {
			old := fmt.Sprintf("t-%d", (round-3)*3+k)
			if _, ok := live[old]; ok {
				if err := st.DeleteTopic(old); err != nil {
					t.Fatal(err)
				}
				delete(live, old)
			}
		}
		for name := range live {
			if live[name] > 10*valueLen {
				var r int
				fmt.Sscanf(name, "t-%d", &r)
				if err := tr.DeleteLedgersBefore(name, int64((r/3)*10+2)); err != nil {
					t.Fatal(err)
				}
				live[name] = 10 * valueLen
			}
		}
		fi, _ := os.Stat(path)
		peak = max(peak, fi.Size())
		check(round)
	}
	// Everything deleted: the file shrinks to within the slack (compaction
	// waits until more than the slack is wasted), well under its peak.
	for name := range live {
		if err := st.DeleteTopic(name); err != nil {
			t.Fatal(err)
		}
		delete(live, name)
	}
	u := check(-1)
	fi, _ := os.Stat(path)
	if fi.Size() > 2*slack || fi.Size() >= peak || u.Compactions == 0 {
		t.Fatalf("after deleting everything the file is %d bytes (peak %d); %d compactions", fi.Size(), peak, u.Compactions)
	}
	// What is left reads back after a reopen.
	write("again", 1, 3)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = OpenBoltWith(path, BoltOptions{CompactSlack: slack})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := st.Entries("again", func(e StoredEntry) error {
		if !bytes.Equal(e.Payload, payload) {
			t.Fatalf("entry %d:%d changed", e.Ledger, e.Entry)
		}
		n++
		return nil
	}); err != nil || n != 3 {
		t.Fatalf("after reopen: %d entries, %v", n, err)
	}
}

// A file left with much free space (compaction off while it was written)
// is compacted when it is opened, and an interrupted compaction's copy is
// removed.
func TestBoltCompactsAtOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	st, err := OpenBoltWith(path, BoltOptions{CompactSlack: -1})
	if err != nil {
		t.Fatal(err)
	}
	payload := bytes.Repeat([]byte{1}, 64<<10)
	for i := range 100 {
		if err := st.AppendEntry("a", StoredEntry{Ledger: 1, Entry: int64(i), Payload: payload}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.AppendEntry("b", StoredEntry{Ledger: 2, Entry: 0, Payload: payload}); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteTopic("a"); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+compactSuffix, []byte("half a copy"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err = OpenBoltWith(path, BoltOptions{CompactSlack: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	after, _ := os.Stat(path)
	if after.Size() >= before.Size()/2 {
		t.Fatalf("file %d -> %d bytes at open", before.Size(), after.Size())
	}
	if _, err := os.Stat(path + compactSuffix); !os.IsNotExist(err) {
		t.Fatalf("the interrupted copy is still there: %v", err)
	}
	e, ok, err := st.(EntryReader).ReadEntry("b", 2, 0)
	if err != nil || !ok || !bytes.Equal(e.Payload, payload) {
		t.Fatalf("entry of b after compaction: %v %v", ok, err)
	}
}
