package store

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
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
		// Ledger ids are unique in the store, as in a Pulsar cluster: a
		// message id must name one topic's entry.
		if id := next("b"); id != FirstLedgerID+2 {
			t.Fatalf("first id of another topic = %d, want %d", id, FirstLedgerID+2)
		}
		s = restart(s)
		if id := next("a"); id != FirstLedgerID+3 {
			t.Fatalf("id after restart = %d", id)
		}
		mustAppend(t, s, "a", entry(40, 0))
		if id := next("b"); id != 41 {
			t.Fatalf("id of b after appending to a's ledger 40 = %d, want 41", id)
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
