package store

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// rssFile is RssFile of /proc/self/status: the file-backed pages resident
// in this process, in bytes.
func rssFile(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

// TestBoltGivesBackMappedPages: entries read back from the file stay
// resident as mapped file pages until a delete lets the store give them
// back, so the stub's RSS follows its working set (issue #38: RSS 350-490
// MiB above the anonymous memory in a churn soak).
func TestBoltGivesBackMappedPages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("madvise of the mapping is done on Linux")
	}
	path := filepath.Join(t.TempDir(), "s.db")
	// Compaction off, so that only the release can take the pages away
	// (a compaction maps a new file).
	st, err := OpenBoltWith(path, BoltOptions{CompactSlack: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	const n, size = 96, 512 << 10 // 48 MiB
	payload := bytes.Repeat([]byte{9}, size)
	errs := make(chan error, n)
	for i := range n {
		st.(AsyncAppender).AppendEntryAsync("big", StoredEntry{Ledger: 1, Entry: int64(i), Payload: payload}, func(err error) { errs <- err })
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if err := st.AppendEntry("small", StoredEntry{Ledger: 1, Entry: 0, Payload: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	before := rssFile(t)
	for i := range n {
		e, ok, err := st.(EntryReader).ReadEntry("big", 1, int64(i))
		if err != nil || !ok || len(e.Payload) != size {
			t.Fatalf("entry %d: %v %v %d", i, ok, err, len(e.Payload))
		}
	}
	read := rssFile(t)
	if err := st.DeleteTopic("small"); err != nil {
		t.Fatal(err)
	}
	waitCompacted(t, st)
	after := rssFile(t)
	t.Logf("RssFile: %d MiB before reading, %d MiB after reading 48 MiB, %d MiB after the release", before>>20, read>>20, after>>20)
	if read-before < 32<<20 {
		t.Skipf("reading 48 MiB mapped only %d MiB: nothing to give back here", (read-before)>>20)
	}
	if read-after < 32<<20 {
		t.Fatalf("a delete gave back %d MiB of the %d MiB of mapped pages the reads left resident", (read-after)>>20, (read-before)>>20)
	}
}
