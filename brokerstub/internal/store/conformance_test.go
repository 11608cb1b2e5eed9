package store

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// implementation is one Store under the conformance suite.
type implementation struct {
	name string
	// start returns a fresh store and restart, which simulates a broker
	// restart: given the store in use it returns the store the restarted
	// broker uses. The memory store is kept by the Broker object, so it is
	// the same value; a bbolt store is closed and opened again from its
	// file. (A kill -9 cannot be simulated in one process, because bbolt
	// holds a file lock until Close; the end-to-end tests cover it.)
	start func(t *testing.T) (s Store, restart func(Store) Store)
}

var implementations = []implementation{
	{
		name: "memory",
		start: func(t *testing.T) (Store, func(Store) Store) {
			s := NewMemory()
			t.Cleanup(func() { s.Close() })
			return s, func(s Store) Store { return s }
		},
	},
	{
		name: "bolt",
		start: func(t *testing.T) (Store, func(Store) Store) {
			path := filepath.Join(t.TempDir(), "data", "stub.db")
			s := openBolt(t, path)
			restart := func(s Store) Store {
				if err := s.Close(); err != nil {
					t.Fatalf("Close: %v", err)
				}
				return openBolt(t, path)
			}
			return s, restart
		},
	},
}

// openBolt opens path and closes the store when the test ends.
func openBolt(t *testing.T, path string) Store {
	t.Helper()
	s, err := OpenBolt(path)
	if err != nil {
		t.Fatalf("OpenBolt: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// forEach runs test as a subtest for every implementation.
func forEach(t *testing.T, test func(t *testing.T, s Store, restart func(Store) Store)) {
	for _, impl := range implementations {
		t.Run(impl.name, func(t *testing.T) {
			s, restart := impl.start(t)
			test(t, s, restart)
		})
	}
}

// entry returns a StoredEntry whose fields are derived from its position.
func entry(ledger, id int64) StoredEntry {
	return StoredEntry{
		Ledger:          ledger,
		Entry:           id,
		Meta:            fmt.Appendf(nil, "meta-%d-%d", ledger, id),
		Payload:         fmt.Appendf(nil, "payload-%d-%d", ledger, id),
		PublishTime:     uint64(1000*ledger + id),
		BrokerTimestamp: uint64(2000*ledger + id),
		NumMessages:     int32(id%5 + 1),
	}
}

func sameEntry(a, b StoredEntry) bool {
	return a.Ledger == b.Ledger && a.Entry == b.Entry &&
		bytes.Equal(a.Meta, b.Meta) && bytes.Equal(a.Payload, b.Payload) &&
		a.PublishTime == b.PublishTime && a.BrokerTimestamp == b.BrokerTimestamp &&
		a.NumMessages == b.NumMessages
}

func mustAppend(t *testing.T, s Store, topic string, es ...StoredEntry) {
	t.Helper()
	for _, e := range es {
		if err := s.AppendEntry(topic, e); err != nil {
			t.Fatalf("AppendEntry(%q, %d:%d): %v", topic, e.Ledger, e.Entry, err)
		}
	}
}

func readAll(t *testing.T, s Store, topic string) []StoredEntry {
	t.Helper()
	var got []StoredEntry
	if err := s.Entries(topic, func(e StoredEntry) error {
		got = append(got, e)
		return nil
	}); err != nil {
		t.Fatalf("Entries(%q): %v", topic, err)
	}
	return got
}

func checkEntries(t *testing.T, s Store, topic string, want []StoredEntry) {
	t.Helper()
	got := readAll(t, s, topic)
	if len(got) != len(want) {
		t.Fatalf("Entries(%q): %d entries, want %d", topic, len(got), len(want))
	}
	for i := range want {
		if !sameEntry(got[i], want[i]) {
			t.Fatalf("Entries(%q)[%d] = %+v, want %+v", topic, i, got[i], want[i])
		}
	}
}

func TestAppendAndReplayInOrder(t *testing.T) {
	forEach(t, func(t *testing.T, s Store, restart func(Store) Store) {
		// Ledger ids that order differently as little-endian bytes.
		want := []StoredEntry{
			entry(1, 0), entry(1, 1), entry(1, 2),
			entry(2, 0),
			entry(255, 0), entry(255, 1),
			entry(256, 0),
			entry(65536, 0), entry(65536, 255), entry(65536, 256),
		}
		mustAppend(t, s, "t", want...)
		mustAppend(t, s, "other", entry(3, 0))
		checkEntries(t, s, "t", want)
		s = restart(s)
		checkEntries(t, s, "t", want)
		checkEntries(t, s, "other", []StoredEntry{entry(3, 0)})
	})
}

func TestAppendEmptyAndLargeValues(t *testing.T) {
	forEach(t, func(t *testing.T, s Store, restart func(Store) Store) {
		big := bytes.Repeat([]byte("0123456789abcdef"), 5<<20/16) // 5 MiB
		want := []StoredEntry{
			{Ledger: 1, Entry: 0},
			{Ledger: 1, Entry: 1, Meta: []byte{1}, NumMessages: -1},
			{Ledger: 1, Entry: 2, Meta: []byte("m"), Payload: big, PublishTime: ^uint64(0)},
		}
		mustAppend(t, s, "t", want...)
		s = restart(s)
		got := readAll(t, s, "t")
		checkEntries(t, s, "t", want)
		// Meta must not share capacity with Payload.
		got[2].Meta = append(got[2].Meta, 'x')
		if !bytes.Equal(got[2].Payload, big) {
			t.Fatal("appending to Meta changed Payload")
		}
	})
}

func TestAppendRejectsBadPositions(t *testing.T) {
	forEach(t, func(t *testing.T, s Store, _ func(Store) Store) {
		mustAppend(t, s, "t", entry(2, 0), entry(2, 1))
		for _, c := range []struct {
			topic string
			e     StoredEntry
			want  error
		}{
			{"t", entry(2, 1), ErrOutOfOrder},
			{"t", entry(2, 0), ErrOutOfOrder},
			{"t", entry(1, 9), ErrOutOfOrder},
			{"t", entry(-1, 0), ErrInvalidArgument},
			{"t", entry(3, -1), ErrInvalidArgument},
			{"", entry(3, 0), ErrInvalidArgument},
		} {
			if err := s.AppendEntry(c.topic, c.e); !errors.Is(err, c.want) {
				t.Errorf("AppendEntry(%q, %d:%d) = %v, want %v", c.topic, c.e.Ledger, c.e.Entry, err, c.want)
			}
		}
		checkEntries(t, s, "t", []StoredEntry{entry(2, 0), entry(2, 1)})
		mustAppend(t, s, "t", entry(2, 5), entry(3, 0))
	})
}

func TestEntriesStopsAtError(t *testing.T) {
	forEach(t, func(t *testing.T, s Store, _ func(Store) Store) {
		mustAppend(t, s, "t", entry(1, 0), entry(1, 1), entry(1, 2))
		stop := errors.New("stop")
		n := 0
		err := s.Entries("t", func(StoredEntry) error {
			n++
			if n == 2 {
				return stop
			}
			return nil
		})
		if err != stop || n != 2 {
			t.Fatalf("Entries = %v after %d calls, want stop after 2", err, n)
		}
		if got := readAll(t, s, "missing"); len(got) != 0 {
			t.Fatalf("Entries of a missing topic: %d entries", len(got))
		}
		if err := s.Entries("", func(StoredEntry) error { return nil }); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("Entries(\"\") = %v", err)
		}
	})
}

func TestNewLedgerID(t *testing.T) {
	forEach(t, func(t *testing.T, s Store, restart func(Store) Store) {
		next := func(topic string) int64 {
			t.Helper()
			id, err := s.NewLedgerID(topic)
			if err != nil {
				t.Fatalf("NewLedgerID(%q): %v", topic, err)
			}
			return id
		}
		if id := next("a"); id != FirstLedgerID {
			t.Fatalf("first id = %d, want %d", id, FirstLedgerID)
		}
		if id := next("a"); id != FirstLedgerID+1 {
			t.Fatalf("second id = %d", id)
		}
		if id := next("b"); id != FirstLedgerID {
			t.Fatalf("first id of another topic = %d", id)
		}
		s = restart(s)
		if id := next("a"); id != FirstLedgerID+2 {
			t.Fatalf("id after restart = %d", id)
		}
		mustAppend(t, s, "a", entry(40, 0))
		if id := next("a"); id != 41 {
			t.Fatalf("id after appending to ledger 40 = %d, want 41", id)
		}
		if err := s.DeleteTopic("a"); err != nil {
			t.Fatal(err)
		}
		s = restart(s)
		if id := next("a"); id != 42 {
			t.Fatalf("id after DeleteTopic = %d, want 42", id)
		}
		if _, err := s.NewLedgerID(""); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("NewLedgerID(\"\") = %v", err)
		}
	})
}

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
		for i := range topics {
			wg.Go(func() {
				topic := fmt.Sprintf("t%d", i)
				for j := range perTopic {
					id, err := s.NewLedgerID(topic)
					if err == nil {
						err = s.AppendEntry(topic, entry(id, int64(j)))
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
		s = restart(s)
		for i := range topics {
			topic := fmt.Sprintf("t%d", i)
			var want []StoredEntry
			for j := range perTopic {
				want = append(want, entry(FirstLedgerID+int64(j), int64(j)))
			}
			checkEntries(t, s, topic, want)
			checkLoad(t, s, topic, "sub", fmt.Append(nil, perTopic-1), true)
		}
	})
}
