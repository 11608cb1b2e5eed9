package pulsar

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The primitive schemas encode as the official Go client does: INT16,
// INT32 and INT64 little-endian, FLOAT and DOUBLE big-endian IEEE 754.
// (The Java client writes the integers big-endian; a Go value crosses to
// Java, and back, only through the same client family's convention.)

// StringSchema encodes strings as their UTF-8 bytes.
type StringSchema struct{ SchemaInfo }

// NewStringSchema returns the STRING schema, named "String".
func NewStringSchema(properties map[string]string) *StringSchema {
	return &StringSchema{SchemaInfo{Name: "String", Type: STRING, Properties: properties}}
}

// Encode returns the bytes of v, a string (or *string).
func (ss *StringSchema) Encode(v any) ([]byte, error) {
	switch s := v.(type) {
	case string:
		return []byte(s), nil
	case *string:
		if s != nil {
			return []byte(*s), nil
		}
	}
	return nil, wrongType("encode", STRING, v, "string")
}

// Decode sets v to the payload as a string; v is a *string, a **string
// (the official client's form) or a *any.
func (ss *StringSchema) Decode(data []byte, v any) error {
	switch p := v.(type) {
	case *string:
		if p != nil {
			*p = string(data)
			return nil
		}
	case **string:
		if p != nil {
			s := string(data)
			*p = &s
			return nil
		}
	case *any:
		if p != nil {
			*p = string(data)
			return nil
		}
	}
	return wrongType("decode", STRING, v, "*string")
}

// Validate accepts every payload.
func (ss *StringSchema) Validate([]byte) error { return nil }

// GetSchemaInfo returns the schema's SchemaInfo.
func (ss *StringSchema) GetSchemaInfo() *SchemaInfo { return &ss.SchemaInfo }

// BytesSchema passes payloads through. Its type is BYTES (NONE on the
// wire).
type BytesSchema struct{ SchemaInfo }

// NewBytesSchema returns the BYTES schema, named "Bytes". A producer,
// consumer or reader given it uses NewBytesSchema(nil) instead (its
// properties are not sent), as the official client does with every schema
// of type NONE.
func NewBytesSchema(properties map[string]string) *BytesSchema {
	return &BytesSchema{SchemaInfo{Name: "Bytes", Type: BYTES, Properties: properties}}
}

// Encode returns data, a []byte.
func (bs *BytesSchema) Encode(data any) ([]byte, error) {
	if b, ok := data.([]byte); ok {
		return b, nil
	}
	return nil, wrongType("encode", BYTES, data, "[]byte")
}

// Decode sets v, a *[]byte or *any, to data (not a copy).
func (bs *BytesSchema) Decode(data []byte, v any) error {
	switch p := v.(type) {
	case *[]byte:
		if p != nil {
			*p = data
			return nil
		}
	case *any:
		if p != nil {
			*p = data
			return nil
		}
	}
	return wrongType("decode", BYTES, v, "*[]byte")
}

// Validate accepts every payload.
func (bs *BytesSchema) Validate([]byte) error { return nil }

// GetSchemaInfo returns the schema's SchemaInfo.
func (bs *BytesSchema) GetSchemaInfo() *SchemaInfo { return &bs.SchemaInfo }

// Int8Schema encodes an int8 as one byte.
type Int8Schema struct{ SchemaInfo }

// NewInt8Schema returns the INT8 schema, named "INT8".
func NewInt8Schema(properties map[string]string) *Int8Schema {
	return &Int8Schema{SchemaInfo{Name: "INT8", Type: INT8, Properties: properties}}
}

// Encode returns the byte of value, an int8.
func (s *Int8Schema) Encode(value any) ([]byte, error) {
	if x, ok := value.(int8); ok {
		return []byte{byte(x)}, nil
	}
	return nil, wrongType("encode", INT8, value, "int8")
}

// Decode sets v, an *int8 or *any, from the first byte of data.
func (s *Int8Schema) Decode(data []byte, v any) error {
	if err := sized(INT8, data, 1); err != nil {
		return err
	}
	return setNumber(INT8, v, int8(data[0]))
}

// Validate reports whether message is one byte.
func (s *Int8Schema) Validate(message []byte) error { return exactly(INT8, message, 1) }

// GetSchemaInfo returns the schema's SchemaInfo.
func (s *Int8Schema) GetSchemaInfo() *SchemaInfo { return &s.SchemaInfo }

// Int16Schema encodes an int16 as two little-endian bytes.
type Int16Schema struct{ SchemaInfo }

// NewInt16Schema returns the INT16 schema, named "INT16".
func NewInt16Schema(properties map[string]string) *Int16Schema {
	return &Int16Schema{SchemaInfo{Name: "INT16", Type: INT16, Properties: properties}}
}

// Encode returns the bytes of value, an int16.
func (s *Int16Schema) Encode(value any) ([]byte, error) {
	if x, ok := value.(int16); ok {
		return binary.LittleEndian.AppendUint16(nil, uint16(x)), nil
	}
	return nil, wrongType("encode", INT16, value, "int16")
}

// Decode sets v, an *int16 or *any, from the first two bytes of data.
func (s *Int16Schema) Decode(data []byte, v any) error {
	if err := sized(INT16, data, 2); err != nil {
		return err
	}
	return setNumber(INT16, v, int16(binary.LittleEndian.Uint16(data)))
}

// Validate reports whether message is two bytes.
func (s *Int16Schema) Validate(message []byte) error { return exactly(INT16, message, 2) }

// GetSchemaInfo returns the schema's SchemaInfo.
func (s *Int16Schema) GetSchemaInfo() *SchemaInfo { return &s.SchemaInfo }

// Int32Schema encodes an int32 as four little-endian bytes.
type Int32Schema struct{ SchemaInfo }

// NewInt32Schema returns the INT32 schema, named "INT32".
func NewInt32Schema(properties map[string]string) *Int32Schema {
	return &Int32Schema{SchemaInfo{Name: "INT32", Type: INT32, Properties: properties}}
}

// Encode returns the bytes of value, an int32.
func (s *Int32Schema) Encode(value any) ([]byte, error) {
	if x, ok := value.(int32); ok {
		return binary.LittleEndian.AppendUint32(nil, uint32(x)), nil
	}
	return nil, wrongType("encode", INT32, value, "int32")
}

// Decode sets v, an *int32 or *any, from the first four bytes of data.
func (s *Int32Schema) Decode(data []byte, v any) error {
	if err := sized(INT32, data, 4); err != nil {
		return err
	}
	return setNumber(INT32, v, int32(binary.LittleEndian.Uint32(data)))
}

// Validate reports whether message is four bytes.
func (s *Int32Schema) Validate(message []byte) error { return exactly(INT32, message, 4) }

// GetSchemaInfo returns the schema's SchemaInfo.
func (s *Int32Schema) GetSchemaInfo() *SchemaInfo { return &s.SchemaInfo }

// Int64Schema encodes an int64 as eight little-endian bytes.
type Int64Schema struct{ SchemaInfo }

// NewInt64Schema returns the INT64 schema, named "INT64".
func NewInt64Schema(properties map[string]string) *Int64Schema {
	return &Int64Schema{SchemaInfo{Name: "INT64", Type: INT64, Properties: properties}}
}

// Encode returns the bytes of value, an int64.
func (s *Int64Schema) Encode(value any) ([]byte, error) {
	if x, ok := value.(int64); ok {
		return binary.LittleEndian.AppendUint64(nil, uint64(x)), nil
	}
	return nil, wrongType("encode", INT64, value, "int64")
}

// Decode sets v, an *int64 or *any, from the first eight bytes of data.
func (s *Int64Schema) Decode(data []byte, v any) error {
	if err := sized(INT64, data, 8); err != nil {
		return err
	}
	return setNumber(INT64, v, int64(binary.LittleEndian.Uint64(data)))
}

// Validate reports whether message is eight bytes.
func (s *Int64Schema) Validate(message []byte) error { return exactly(INT64, message, 8) }

// GetSchemaInfo returns the schema's SchemaInfo.
func (s *Int64Schema) GetSchemaInfo() *SchemaInfo { return &s.SchemaInfo }

// FloatSchema encodes a float32 as four big-endian bytes.
type FloatSchema struct{ SchemaInfo }

// NewFloatSchema returns the FLOAT schema, named "FLOAT".
func NewFloatSchema(properties map[string]string) *FloatSchema {
	return &FloatSchema{SchemaInfo{Name: "FLOAT", Type: FLOAT, Properties: properties}}
}

// Encode returns the bytes of value: a float32, a float64, or an int,
// int32 or int64 that a float32 holds exactly.
func (s *FloatSchema) Encode(value any) ([]byte, error) {
	var f float32
	switch x := value.(type) {
	case float32:
		f = x
	case float64:
		f = float32(x)
	case int:
		f = float32(x)
		if int(f) != x {
			return nil, lossy(FLOAT, value)
		}
	case int32:
		f = float32(x)
		if int32(f) != x {
			return nil, lossy(FLOAT, value)
		}
	case int64:
		f = float32(x)
		if int64(f) != x {
			return nil, lossy(FLOAT, value)
		}
	default:
		return nil, wrongType("encode", FLOAT, value, "float32")
	}
	return binary.BigEndian.AppendUint32(nil, math.Float32bits(f)), nil
}

// Decode sets v, a *float32 or *any, from the first four bytes of data.
func (s *FloatSchema) Decode(data []byte, v any) error {
	if err := sized(FLOAT, data, 4); err != nil {
		return err
	}
	return setNumber(FLOAT, v, math.Float32frombits(binary.BigEndian.Uint32(data)))
}

// Validate reports whether message is four bytes.
func (s *FloatSchema) Validate(message []byte) error { return exactly(FLOAT, message, 4) }

// GetSchemaInfo returns the schema's SchemaInfo.
func (s *FloatSchema) GetSchemaInfo() *SchemaInfo { return &s.SchemaInfo }

// DoubleSchema encodes a float64 as eight big-endian bytes.
type DoubleSchema struct{ SchemaInfo }

// NewDoubleSchema returns the DOUBLE schema, named "DOUBLE".
func NewDoubleSchema(properties map[string]string) *DoubleSchema {
	return &DoubleSchema{SchemaInfo{Name: "DOUBLE", Type: DOUBLE, Properties: properties}}
}

// Encode returns the bytes of value: a float64, a float32, or an int,
// int32 or int64 that a float64 holds exactly.
func (s *DoubleSchema) Encode(value any) ([]byte, error) {
	var f float64
	switch x := value.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		f = float64(x)
		if int(f) != x {
			return nil, lossy(DOUBLE, value)
		}
	case int32:
		f = float64(x)
	case int64:
		f = float64(x)
		if int64(f) != x {
			return nil, lossy(DOUBLE, value)
		}
	default:
		return nil, wrongType("encode", DOUBLE, value, "float64")
	}
	return binary.BigEndian.AppendUint64(nil, math.Float64bits(f)), nil
}

// Decode sets v, a *float64 or *any, from the first eight bytes of data.
func (s *DoubleSchema) Decode(data []byte, v any) error {
	if err := sized(DOUBLE, data, 8); err != nil {
		return err
	}
	return setNumber(DOUBLE, v, math.Float64frombits(binary.BigEndian.Uint64(data)))
}

// Validate reports whether message is eight bytes.
func (s *DoubleSchema) Validate(message []byte) error { return exactly(DOUBLE, message, 8) }

// GetSchemaInfo returns the schema's SchemaInfo.
func (s *DoubleSchema) GetSchemaInfo() *SchemaInfo { return &s.SchemaInfo }

// setNumber stores x in v, a *N or *any.
func setNumber[N int8 | int16 | int32 | int64 | float32 | float64](t SchemaType, v any, x N) error {
	switch p := v.(type) {
	case *N:
		if p != nil {
			*p = x
			return nil
		}
	case *any:
		if p != nil {
			*p = x
			return nil
		}
	}
	var zero N
	return wrongType("decode", t, v, fmt.Sprintf("*%T", zero))
}

// sized fails when data is shorter than n bytes (more are ignored, as the
// official client does).
func sized(t SchemaType, data []byte, n int) error {
	if len(data) < n {
		return &SchemaError{Op: "decode", Type: t, Err: fmt.Errorf("%d bytes, need %d", len(data), n)}
	}
	return nil
}

// exactly fails when data is not n bytes.
func exactly(t SchemaType, data []byte, n int) error {
	if len(data) != n {
		return &SchemaError{Op: "validate", Type: t, Err: fmt.Errorf("%d bytes, want %d", len(data), n)}
	}
	return nil
}

func wrongType(op string, t SchemaType, v any, want string) error {
	return &SchemaError{Op: op, Type: t, Err: fmt.Errorf("%T given, want %s", v, want)}
}

func lossy(t SchemaType, v any) error {
	return &SchemaError{Op: "encode", Type: t, Err: fmt.Errorf("%T %v loses precision", v, v)}
}
