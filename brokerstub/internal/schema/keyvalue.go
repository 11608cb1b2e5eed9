package schema

import (
	"encoding/binary"
	"fmt"
)

// splitKeyValue splits a KEY_VALUE schema into its key and value schemas,
// as Pulsar's KeyValueSchemaInfo encodes them: the data is a 4-byte
// big-endian length and the key schema's data, then the same for the value
// (a length of -1 is empty data); the properties "key.schema.type" and
// "value.schema.type" name the parts' types (Pulsar's SchemaType names;
// missing means BYTES, which is NONE here).
func splitKeyValue(s Schema) (key, value Schema, err error) {
	d := s.Data
	part := func() ([]byte, error) {
		if len(d) < 4 {
			return nil, fmt.Errorf("%w: KEY_VALUE schema data too short", ErrInvalid)
		}
		n := int32(binary.BigEndian.Uint32(d))
		d = d[4:]
		if n < 0 {
			return []byte{}, nil
		}
		if int64(n) > int64(len(d)) {
			return nil, fmt.Errorf("%w: KEY_VALUE schema part of %d bytes, %d left", ErrInvalid, n, len(d))
		}
		p := d[:n]
		d = d[n:]
		return p, nil
	}
	if key.Data, err = part(); err != nil {
		return
	}
	if value.Data, err = part(); err != nil {
		return
	}
	if key.Type, err = typeByName(s.Props["key.schema.type"]); err != nil {
		return
	}
	value.Type, err = typeByName(s.Props["value.schema.type"])
	return
}

// SplitKeyValue returns the key and value schemas of a KEY_VALUE schema
// (see splitKeyValue for the encoding); the admin API turns them into
// Pulsar's {"key": ..., "value": ...} string form.
func SplitKeyValue(s Schema) (key, value Schema, err error) { return splitKeyValue(s) }

// KeyValueData encodes a KEY_VALUE schema's data from its parts' data, the
// encoding SplitKeyValue reads (the part types travel in the properties).
func KeyValueData(key, value []byte) []byte {
	out := make([]byte, 0, 8+len(key)+len(value))
	out = binary.BigEndian.AppendUint32(out, uint32(len(key)))
	out = append(out, key...)
	out = binary.BigEndian.AppendUint32(out, uint32(len(value)))
	return append(out, value...)
}

func typeByName(n string) (Type, error) {
	if n == "" || n == "BYTES" {
		return None, nil
	}
	for t, name := range typeNames {
		if name == n {
			return t, nil
		}
	}
	return None, fmt.Errorf("%w: unknown KEY_VALUE part type %q", ErrInvalid, n)
}

// validateKeyValue checks both parts of a KEY_VALUE schema (Pulsar's
// KeyValueSchemaDataValidator). Empty data is a KEY_VALUE of two BYTES.
func validateKeyValue(s Schema) error {
	if len(s.Data) == 0 {
		return nil
	}
	k, v, err := splitKeyValue(s)
	if err != nil {
		return err
	}
	if k.Type == KeyValue || v.Type == KeyValue {
		return fmt.Errorf("%w: nested KEY_VALUE schema", ErrInvalid)
	}
	if err := Validate(k); err != nil {
		return err
	}
	return Validate(v)
}

// checkKeyValue is Pulsar's KeyValueSchemaCompatibilityCheck: the key and
// value types may not change, and each part is checked under the strategy
// by its own type's rules.
func checkKeyValue(from []Schema, to Schema, strategy Strategy) error {
	tk, tv, err := splitKeyValue(to)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrIncompatible, err)
	}
	var fks, fvs []Schema
	for _, f := range from {
		fk, fv, err := splitKeyValue(f)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrIncompatible, err)
		}
		if fk.Type != tk.Type || fv.Type != tv.Type {
			return fmt.Errorf("%w: Key schema or Value schema types of NEW schema (%s, %s) are not the same as the OLD schema (%s, %s)",
				ErrIncompatible, tk.Type, tv.Type, fk.Type, fv.Type)
		}
		fks, fvs = append(fks, fk), append(fvs, fv)
	}
	if err := checkCompatible(fks, tk, strategy); err != nil {
		return err
	}
	return checkCompatible(fvs, tv, strategy)
}
