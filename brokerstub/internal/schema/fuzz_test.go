package schema

import (
	"errors"
	"testing"
)

// FuzzSchemaData feeds arbitrary schema data through validation, equality
// and every strategy's check against a fixed history: errors are
// ErrInvalid or ErrIncompatible, never a panic.
func FuzzSchemaData(f *testing.F) {
	for _, s := range []string{userV1, userAgeDefault, userEmpty, `"int"`, `["null","string"]`,
		`{"type":"enum","name":"E","symbols":["A","A"]}`, `{"type":"fixed","name":"F","size":1e99}`,
		`{"type":"record","name":"L","fields":[{"name":"n","type":["null","L"]}]}`,
		`{"type":"map","values":{"type":"array","items":"Nope"}}`, `{"type":"object","id":"x"}`, ``, `{`} {
		f.Add([]byte(s), int32(Avro))
		f.Add([]byte(s), int32(JSON))
	}
	for _, root := range []string{"pkg.Person", "pkg.Person.Inner", "Person", "pkg.."} {
		f.Add(nativeSchema(f, root, "person.proto", personFile("pkg", i32), addressFile("pkg")).Data, int32(ProtobufNative))
	}
	f.Add(nativeSchema(f, "pkg.Person", "person.proto", personFile("pkg", i32)).Data, int32(ProtobufNative))
	f.Fuzz(func(t *testing.T, data []byte, typ int32) {
		s := Schema{Type: Type(typ), Data: data}
		if err := Validate(s); err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Validate error %v is not ErrInvalid", err)
			}
			return
		}
		history := []Schema{{Type: s.Type, Data: []byte(userV1)}, {Type: s.Type, Data: []byte(userAgeDefault)}}
		_ = sameSchema(history[0], s)
		for st := AlwaysIncompatible; st <= FullTransitive; st++ {
			if err := checkCompatible(history, s, st); err != nil && !errors.Is(err, ErrIncompatible) {
				t.Fatalf("%s: error %v is not ErrIncompatible", st, err)
			}
		}
	})
}
