package store

import (
	"encoding/binary"
	"math"
)

// On-disk encoding of entries in a bbolt store.
//
// Key: ledger id and entry id, each as a big-endian uint64 (both are >= 0),
// so that bbolt's byte order is position order.
//
// Value: a fixed header, then the metadata, then the payload:
//
//	offset size field
//	0      1    format version (entryFormat)
//	1      8    publish time, ms, big-endian
//	9      8    broker timestamp, ms, big-endian
//	17     4    number of messages, big-endian int32
//	21     4    metadata length, big-endian uint32
//	25     ...  metadata, then payload (the rest of the value)
const (
	entryKeyLen    = 16
	entryHeaderLen = 25
	entryFormat    = 1
)

// entryKey encodes a position as a bbolt key.
func entryKey(ledger, entry int64) []byte {
	k := make([]byte, entryKeyLen)
	binary.BigEndian.PutUint64(k[0:8], uint64(ledger))
	binary.BigEndian.PutUint64(k[8:16], uint64(entry))
	return k
}

// decodeEntryKey decodes a key made by entryKey.
func decodeEntryKey(k []byte) (ledger, entry int64, err error) {
	if len(k) != entryKeyLen {
		return 0, 0, errorf(ErrCorrupt, "entry key of %d bytes", len(k))
	}
	l, e := binary.BigEndian.Uint64(k[0:8]), binary.BigEndian.Uint64(k[8:16])
	if l > math.MaxInt64 || e > math.MaxInt64 {
		return 0, 0, errorf(ErrCorrupt, "entry key %x out of range", k)
	}
	return int64(l), int64(e), nil
}

// encodeEntryValue returns the value stored for e. It fails for metadata
// longer than a uint32 can describe.
func encodeEntryValue(e StoredEntry) ([]byte, error) {
	if uint64(len(e.Meta)) > math.MaxUint32 {
		return nil, errorf(ErrInvalidArgument, "metadata of %d bytes", len(e.Meta))
	}
	v := make([]byte, entryHeaderLen, entryHeaderLen+len(e.Meta)+len(e.Payload))
	v[0] = entryFormat
	binary.BigEndian.PutUint64(v[1:9], e.PublishTime)
	binary.BigEndian.PutUint64(v[9:17], e.BrokerTimestamp)
	binary.BigEndian.PutUint32(v[17:21], uint32(e.NumMessages))
	binary.BigEndian.PutUint32(v[21:25], uint32(len(e.Meta)))
	v = append(v, e.Meta...)
	return append(v, e.Payload...), nil
}

// decodeEntryValue decodes v into e's fields other than the position. Meta
// and Payload are copied out of v (which bbolt owns) into one new buffer;
// Meta's capacity ends where Payload begins.
func decodeEntryValue(v []byte, e *StoredEntry) error {
	if len(v) < entryHeaderLen {
		return errorf(ErrCorrupt, "entry value of %d bytes", len(v))
	}
	if v[0] != entryFormat {
		return errorf(ErrCorrupt, "entry format %d", v[0])
	}
	metaLen := binary.BigEndian.Uint32(v[21:25])
	body := v[entryHeaderLen:]
	if uint64(metaLen) > uint64(len(body)) {
		return errorf(ErrCorrupt, "metadata length %d in a body of %d bytes", metaLen, len(body))
	}
	e.PublishTime = binary.BigEndian.Uint64(v[1:9])
	e.BrokerTimestamp = binary.BigEndian.Uint64(v[9:17])
	e.NumMessages = int32(binary.BigEndian.Uint32(v[17:21]))
	buf := make([]byte, len(body))
	copy(buf, body)
	e.Meta = buf[:metaLen:metaLen]
	e.Payload = buf[metaLen:]
	return nil
}

// encodeUint64 encodes a counter or count value.
func encodeUint64(n uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, n)
}

// decodeUint64 decodes a value made by encodeUint64.
func decodeUint64(v []byte) (uint64, error) {
	if len(v) != 8 {
		return 0, errorf(ErrCorrupt, "counter of %d bytes", len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}
