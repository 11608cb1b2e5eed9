package console

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// maxShown bounds the bytes of a payload the browser shows.
const maxShown = 64 << 10

// Decode fills each message's Value from its Raw payload by the topic's
// schema (see Decode) and lets go of Raw, so that a page of entries holds
// at most one entry's payload at a time.
func (e *Entry) Decode(schemaType string, def []byte) {
	for j := range e.Messages {
		msg := &e.Messages[j]
		if !msg.Null && msg.Decoding == "" {
			msg.Value, msg.Decoding = Decode(schemaType, def, msg.Raw)
		}
		msg.Raw = nil
	}
}

// Decode renders a payload by the schema type (Pulsar's names: "STRING",
// "JSON", "AVRO", "INT64", ...) and, for AVRO, its definition. It returns
// the text and how it was read; what it cannot read is shown as text when
// it is UTF-8, else in hex ("bytes"). Bad input never panics: it is
// shown raw.
func Decode(schemaType string, def, raw []byte) (string, string) {
	switch schemaType {
	case "STRING":
		if utf8.Valid(raw) {
			return clip(string(raw)), "string"
		}
	case "JSON":
		var buf bytes.Buffer
		if json.Indent(&buf, raw, "", "  ") == nil {
			return clip(buf.String()), "json"
		}
	case "AVRO":
		if v, err := decodeAvro(def, raw); err == nil {
			if b, err := json.MarshalIndent(v, "", "  "); err == nil {
				return clip(string(b)), "avro"
			}
		}
	case "BOOLEAN":
		if len(raw) == 1 {
			return strconv.FormatBool(raw[0] != 0), "boolean"
		}
	case "INT8":
		if len(raw) == 1 {
			return strconv.Itoa(int(int8(raw[0]))), "int8"
		}
	case "INT16":
		if len(raw) == 2 {
			return strconv.Itoa(int(int16(binary.BigEndian.Uint16(raw)))), "int16"
		}
	case "INT32":
		if len(raw) == 4 {
			return strconv.Itoa(int(int32(binary.BigEndian.Uint32(raw)))), "int32"
		}
	case "INT64", "TIMESTAMP", "DATE", "TIME", "INSTANT", "LOCAL_DATE_TIME":
		if len(raw) == 8 {
			return strconv.FormatInt(int64(binary.BigEndian.Uint64(raw)), 10), "int64"
		}
	case "FLOAT":
		if len(raw) == 4 {
			return strconv.FormatFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(raw))), 'g', -1, 32), "float"
		}
	case "DOUBLE":
		if len(raw) == 8 {
			return strconv.FormatFloat(math.Float64frombits(binary.BigEndian.Uint64(raw)), 'g', -1, 64), "double"
		}
	}
	if utf8.Valid(raw) {
		return clip(string(raw)), "text"
	}
	shown := raw[:min(len(raw), maxShown/2)]
	return hex.EncodeToString(shown), "bytes"
}

func clip(s string) string {
	if len(s) <= maxShown {
		return s
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Avro binary decoding, enough to show a message: the schema is the JSON
// definition the topic registered; every read is bounded by the payload.

var errAvro = errors.New("console: payload does not match the Avro schema")

// maxAvroDepth bounds nesting in the schema and the data.
const maxAvroDepth = 32

type avroReader struct {
	b     []byte
	named map[string]any
}

func decodeAvro(def, raw []byte) (any, error) {
	var sch any
	if err := json.Unmarshal(def, &sch); err != nil {
		return nil, err
	}
	r := &avroReader{b: raw, named: map[string]any{}}
	v, err := r.value(sch, 0)
	if err != nil {
		return nil, err
	}
	if len(r.b) != 0 {
		return nil, errAvro
	}
	return v, nil
}

func (r *avroReader) long() (int64, error) {
	u, n := binary.Uvarint(r.b)
	if n <= 0 {
		return 0, errAvro
	}
	r.b = r.b[n:]
	return int64(u>>1) ^ -int64(u&1), nil
}

func (r *avroReader) take(n int64) ([]byte, error) {
	if n < 0 || n > int64(len(r.b)) {
		return nil, errAvro
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out, nil
}

func (r *avroReader) value(sch any, depth int) (any, error) {
	if depth > maxAvroDepth {
		return nil, errAvro
	}
	switch s := sch.(type) {
	case string:
		return r.primitive(s, depth)
	case []any: // union
		i, err := r.long()
		if err != nil || i < 0 || i >= int64(len(s)) {
			return nil, errAvro
		}
		return r.value(s[i], depth+1)
	case map[string]any:
		typ, _ := s["type"].(string)
		if name, ok := s["name"].(string); ok {
			r.named[name] = s
		}
		switch typ {
		case "record", "error":
			fields, _ := s["fields"].([]any)
			out := make(map[string]any, len(fields))
			for _, f := range fields {
				fm, _ := f.(map[string]any)
				name, _ := fm["name"].(string)
				v, err := r.value(fm["type"], depth+1)
				if err != nil {
					return nil, err
				}
				out[name] = v
			}
			return out, nil
		case "enum":
			syms, _ := s["symbols"].([]any)
			i, err := r.long()
			if err != nil || i < 0 || i >= int64(len(syms)) {
				return nil, errAvro
			}
			return syms[i], nil
		case "fixed":
			size, _ := s["size"].(float64)
			b, err := r.take(int64(size))
			return hex.EncodeToString(b), err
		case "array", "map":
			return r.blocks(s, typ == "map", depth)
		}
		if typ != "" {
			return r.value(typ, depth+1) // {"type":"long","logicalType":...}
		}
		if t, ok := s["type"]; ok {
			return r.value(t, depth+1)
		}
	}
	return nil, errAvro
}

func (r *avroReader) blocks(s map[string]any, isMap bool, depth int) (any, error) {
	var arr []any
	m := map[string]any{}
	for {
		n, err := r.long()
		if err != nil {
			return nil, err
		}
		if n == 0 {
			break
		}
		if n < 0 {
			n = -n
			if _, err := r.long(); err != nil { // block size in bytes
				return nil, err
			}
		}
		if n > int64(len(r.b)) { // every item takes a byte at least... but null items: bound anyway
			return nil, errAvro
		}
		for range n {
			if isMap {
				kb, err := r.bytesVal()
				if err != nil {
					return nil, err
				}
				v, err := r.value(s["values"], depth+1)
				if err != nil {
					return nil, err
				}
				m[string(kb)] = v
				continue
			}
			v, err := r.value(s["items"], depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
	}
	if isMap {
		return m, nil
	}
	if arr == nil {
		arr = []any{}
	}
	return arr, nil
}

func (r *avroReader) bytesVal() ([]byte, error) {
	n, err := r.long()
	if err != nil {
		return nil, err
	}
	return r.take(n)
}

func (r *avroReader) primitive(s string, depth int) (any, error) {
	switch s {
	case "null":
		return nil, nil
	case "boolean":
		b, err := r.take(1)
		if err != nil {
			return nil, err
		}
		return b[0] != 0, nil
	case "int", "long":
		return r.long()
	case "float":
		b, err := r.take(4)
		if err != nil {
			return nil, err
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
	case "double":
		b, err := r.take(8)
		if err != nil {
			return nil, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
	case "bytes":
		b, err := r.bytesVal()
		return hex.EncodeToString(b), err
	case "string":
		b, err := r.bytesVal()
		return string(b), err
	}
	if named, ok := r.named[s]; ok {
		return r.value(named, depth+1)
	}
	return nil, errAvro
}
