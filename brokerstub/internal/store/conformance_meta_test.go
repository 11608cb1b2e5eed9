package store

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
)

// The conformance suite's tests of topics, cursors, partitions, Close and
// concurrent use; the harness and the entry tests are in conformance_test.go.

func checkTopics(t *testing.T, s Store, want ...string) {
	t.Helper()
	got, err := s.Topics()
	if err != nil {
		t.Fatalf("Topics: %v", err)
	}
	if want == nil {
		want = []string{}
	}
	if got == nil || !slices.Equal(got, want) {
		t.Fatalf("Topics = %q, want %q", got, want)
	}
}

func TestTopicsAndDeleteTopic(t *testing.T) {
	forEach(t, func(t *testing.T, s Store, restart func(Store) Store) {
		checkTopics(t, s)
		mustAppend(t, s, "persistent://p/n/c", entry(1, 0))
		if _, err := s.NewLedgerID("persistent://p/n/b"); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveCursor("persistent://p/n/a", "sub", []byte{1}); err != nil {
			t.Fatal(err)
		}
		checkTopics(t, s, "persistent://p/n/a", "persistent://p/n/b", "persistent://p/n/c")
		s = restart(s)
		checkTopics(t, s, "persistent://p/n/a", "persistent://p/n/b", "persistent://p/n/c")

		if err := s.SaveCursor("persistent://p/n/c", "sub", []byte{2}); err != nil {
			t.Fatal(err)
		}
		if err := s.SetPartitions("persistent://p/n/c", 3); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteTopic("persistent://p/n/c"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteTopic("persistent://p/n/never"); err != nil {
			t.Fatalf("DeleteTopic of a missing topic: %v", err)
		}
		checkTopics(t, s, "persistent://p/n/a", "persistent://p/n/b")
		checkEntries(t, s, "persistent://p/n/c", nil)
		checkCursors(t, s, "persistent://p/n/c", map[string][]byte{})
		s = restart(s)
		checkTopics(t, s, "persistent://p/n/a", "persistent://p/n/b")
		expectPartitions(t, s, map[string]int{"persistent://p/n/c": 3})
		// A deleted topic starts afresh: any position is after "nothing".
		mustAppend(t, s, "persistent://p/n/c", entry(1, 0))
		checkEntries(t, s, "persistent://p/n/c", []StoredEntry{entry(1, 0)})
	})
}

func checkCursors(t *testing.T, s Store, topic string, want map[string][]byte) {
	t.Helper()
	got, err := s.Cursors(topic)
	if err != nil {
		t.Fatalf("Cursors(%q): %v", topic, err)
	}
	if got == nil || !maps.EqualFunc(got, want, bytes.Equal) {
		t.Fatalf("Cursors(%q) = %q, want %q", topic, got, want)
	}
}

func checkLoad(t *testing.T, s Store, topic, sub string, want []byte, wantOK bool) {
	t.Helper()
	got, ok, err := s.LoadCursor(topic, sub)
	if err != nil {
		t.Fatalf("LoadCursor(%q, %q): %v", topic, sub, err)
	}
	if ok != wantOK || !bytes.Equal(got, want) || (ok && got == nil) {
		t.Fatalf("LoadCursor(%q, %q) = %q, %v; want %q, %v", topic, sub, got, ok, want, wantOK)
	}
}

func TestCursors(t *testing.T) {
	forEach(t, func(t *testing.T, s Store, restart func(Store) Store) {
		checkLoad(t, s, "t", "s1", nil, false)
		checkCursors(t, s, "t", map[string][]byte{})

		state := []byte("state-1")
		if err := s.SaveCursor("t", "s1", state); err != nil {
			t.Fatal(err)
		}
		state[0] = 'X' // the store must have copied it
		if err := s.SaveCursor("t", "s2", nil); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveCursor("u", "s1", []byte("other topic")); err != nil {
			t.Fatal(err)
		}
		checkLoad(t, s, "t", "s1", []byte("state-1"), true)
		checkLoad(t, s, "t", "s2", []byte{}, true)
		checkLoad(t, s, "t", "s3", nil, false)

		got, _, _ := s.LoadCursor("t", "s1")
		got[0] = 'Y' // and must hand out a copy
		all, _ := s.Cursors("t")
		all["s1"][0] = 'Z'
		checkLoad(t, s, "t", "s1", []byte("state-1"), true)

		if err := s.SaveCursor("t", "s1", []byte("state-2")); err != nil {
			t.Fatal(err)
		}
		s = restart(s)
		checkCursors(t, s, "t", map[string][]byte{"s1": []byte("state-2"), "s2": {}})
		checkCursors(t, s, "u", map[string][]byte{"s1": []byte("other topic")})

		if err := s.DeleteCursor("t", "s2"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteCursor("t", "never"); err != nil {
			t.Fatalf("DeleteCursor of a missing cursor: %v", err)
		}
		if err := s.DeleteCursor("never", "s1"); err != nil {
			t.Fatalf("DeleteCursor on a missing topic: %v", err)
		}
		s = restart(s)
		checkCursors(t, s, "t", map[string][]byte{"s1": []byte("state-2")})
		checkLoad(t, s, "t", "s2", nil, false)

		for _, c := range [][2]string{{"", "s"}, {"t", ""}} {
			if err := s.SaveCursor(c[0], c[1], nil); !errors.Is(err, ErrInvalidArgument) {
				t.Errorf("SaveCursor(%q, %q) = %v", c[0], c[1], err)
			}
			if _, _, err := s.LoadCursor(c[0], c[1]); !errors.Is(err, ErrInvalidArgument) {
				t.Errorf("LoadCursor(%q, %q) = %v", c[0], c[1], err)
			}
			if err := s.DeleteCursor(c[0], c[1]); !errors.Is(err, ErrInvalidArgument) {
				t.Errorf("DeleteCursor(%q, %q) = %v", c[0], c[1], err)
			}
		}
	})
}

func expectPartitions(t *testing.T, s Store, want map[string]int) {
	t.Helper()
	got, err := s.Partitions()
	if err != nil {
		t.Fatalf("Partitions: %v", err)
	}
	if got == nil || !maps.Equal(got, want) {
		t.Fatalf("Partitions = %v, want %v", got, want)
	}
}

func TestPartitions(t *testing.T) {
	forEach(t, func(t *testing.T, s Store, restart func(Store) Store) {
		expectPartitions(t, s, map[string]int{})
		for topic, n := range map[string]int{"a": 3, "b": 1, "c": 7} {
			if err := s.SetPartitions(topic, n); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SetPartitions("a", 5); err != nil {
			t.Fatal(err)
		}
		if err := s.SetPartitions("b", 0); err != nil {
			t.Fatal(err)
		}
		if err := s.SetPartitions("never", 0); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{-1, 1 << 31} {
			if err := s.SetPartitions("d", n); !errors.Is(err, ErrInvalidArgument) {
				t.Errorf("SetPartitions(d, %d) = %v", n, err)
			}
		}
		if err := s.SetPartitions("", 1); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("SetPartitions(\"\", 1) = %v", err)
		}
		s = restart(s)
		expectPartitions(t, s, map[string]int{"a": 5, "c": 7})
		checkTopics(t, s) // partition counts do not create topics
	})
}

func TestClose(t *testing.T) {
	forEach(t, func(t *testing.T, s Store, _ func(Store) Store) {
		mustAppend(t, s, "t", entry(1, 0))
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		calls := map[string]error{
			"AppendEntry":   s.AppendEntry("t", entry(1, 1)),
			"Entries":       s.Entries("t", func(StoredEntry) error { return nil }),
			"DeleteTopic":   s.DeleteTopic("t"),
			"SaveCursor":    s.SaveCursor("t", "s", nil),
			"DeleteCursor":  s.DeleteCursor("t", "s"),
			"SetPartitions": s.SetPartitions("t", 1),
		}
		_, calls["NewLedgerID"] = s.NewLedgerID("t")
		_, calls["Topics"] = s.Topics()
		_, _, calls["LoadCursor"] = s.LoadCursor("t", "s")
		_, calls["Cursors"] = s.Cursors("t")
		_, calls["Partitions"] = s.Partitions()
		for name, err := range calls {
			if !errors.Is(err, ErrClosed) {
				t.Errorf("%s after Close = %v, want ErrClosed", name, err)
			}
		}
	})
}

func TestConcurrentTopics(t *testing.T) {
	forEach(t, func(t *testing.T, s Store, restart func(Store) Store) {
		const topics, perTopic = 8, 12
		var wg sync.WaitGroup
		errs := make(chan error, topics)
		ids := make(chan int64, topics*perTopic)
		for i := range topics {
			wg.Go(func() {
				topic := fmt.Sprintf("t%d", i)
				for j := range perTopic {
					id, err := s.NewLedgerID(topic)
					if err == nil {
						err = s.AppendEntry(topic, entry(id, int64(j)))
					}
					if err == nil {
						ids <- id
					}
					if err == nil {
						err = s.SaveCursor(topic, "sub", fmt.Append(nil, j))
					}
					if err == nil {
						err = s.Entries(topic, func(StoredEntry) error { return nil })
					}
					if err == nil {
						_, err = s.Topics()
					}
					if err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		close(ids)
		seen := map[int64]bool{}
		for id := range ids {
			if seen[id] {
				t.Fatalf("ledger id %d given twice", id)
			}
			seen[id] = true
		}
		s = restart(s)
		for i := range topics {
			topic := fmt.Sprintf("t%d", i)
			n := 0
			err := s.Entries(topic, func(e StoredEntry) error {
				want := entry(e.Ledger, int64(n))
				if e.Entry != int64(n) || !seen[e.Ledger] || !bytes.Equal(e.Payload, want.Payload) || e.PublishTime != want.PublishTime {
					return fmt.Errorf("entry %d is %d:%d", n, e.Ledger, e.Entry)
				}
				n++
				return nil
			})
			if err != nil || n != perTopic {
				t.Fatalf("Entries(%q): %d entries, %v", topic, n, err)
			}
			checkLoad(t, s, topic, "sub", fmt.Append(nil, perTopic-1), true)
		}
	})
}
