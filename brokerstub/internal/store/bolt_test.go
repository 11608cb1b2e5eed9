package store

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func TestEntryCodecRoundTrip(t *testing.T) {
	for _, e := range []StoredEntry{
		{},
		entry(1, 2),
		{Ledger: math.MaxInt64, Entry: math.MaxInt64, Meta: []byte{0}, PublishTime: math.MaxUint64, BrokerTimestamp: 1, NumMessages: math.MinInt32},
	} {
		l, n, err := decodeEntryKey(entryKey(e.Ledger, e.Entry))
		if err != nil || l != e.Ledger || n != e.Entry {
			t.Fatalf("key %d:%d decoded as %d:%d, %v", e.Ledger, e.Entry, l, n, err)
		}
		v, err := encodeEntryValue(e)
		if err != nil {
			t.Fatal(err)
		}
		got := StoredEntry{Ledger: e.Ledger, Entry: e.Entry}
		if err := decodeEntryValue(v, &got); err != nil {
			t.Fatal(err)
		}
		if !sameEntry(got, e) {
			t.Fatalf("decoded %+v, want %+v", got, e)
		}
	}
}

func TestEntryCodecRejectsCorruptData(t *testing.T) {
	good, err := encodeEntryValue(entry(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	badVersion := append([]byte{}, good...)
	badVersion[0] = 9
	longMeta := append([]byte{}, good...)
	longMeta[21], longMeta[22] = 0xff, 0xff
	for name, v := range map[string][]byte{
		"empty":         nil,
		"short header":  good[:entryHeaderLen-1],
		"bad version":   badVersion,
		"meta too long": longMeta,
	} {
		var e StoredEntry
		if err := decodeEntryValue(v, &e); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: decodeEntryValue = %v, want ErrCorrupt", name, err)
		}
	}
	for name, k := range map[string][]byte{
		"short":          make([]byte, 15),
		"negative entry": append(make([]byte, 8), 0x80, 0, 0, 0, 0, 0, 0, 0),
	} {
		if _, _, err := decodeEntryKey(k); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s key: decodeEntryKey = %v, want ErrCorrupt", name, err)
		}
	}
	if _, err := decodeUint64([]byte{1, 2}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("decodeUint64 of 2 bytes = %v", err)
	}
}

// rawUpdate changes the bbolt file at path directly, as corruption would.
func rawUpdate(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestBoltCorruptEntryIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stub.db")
	s := openBolt(t, path)
	mustAppend(t, s, "t", entry(1, 0))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		return tx.Bucket(bucketTopics).Bucket([]byte("t")).Bucket(bucketEntries).Put(entryKey(1, 1), []byte{1, 2, 3})
	})
	s = openBolt(t, path)
	err := s.Entries("t", func(StoredEntry) error { return nil })
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Entries over a corrupt value = %v, want ErrCorrupt", err)
	}
}

func TestBoltRejectsUnknownFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stub.db")
	s := openBolt(t, path)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(keyFormat, []byte{boltFormat + 1})
	})
	if s, err := OpenBolt(path); !errors.Is(err, ErrCorrupt) {
		if err == nil {
			s.Close()
		}
		t.Fatalf("OpenBolt of an unknown format = %v, want ErrCorrupt", err)
	}
	// The failed open released the file lock.
	rawUpdate(t, path, func(*bolt.Tx) error { return nil })
}

func TestOpenBoltCreatesDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "stub.db")
	openBolt(t, path)
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}
