package schema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	gproto "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
)

// field is a proto2-style optional field of a scalar type, or of message
// type typeName when typeName is set.
func field(name string, num int32, typ descriptorpb.FieldDescriptorProto_Type, typeName string) *descriptorpb.FieldDescriptorProto {
	f := &descriptorpb.FieldDescriptorProto{Name: &name, Number: &num, Type: typ.Enum(),
		Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()}
	if typeName != "" {
		f.TypeName = &typeName
	}
	return f
}

// personFile is "person.proto" in package pkg: message Person { age (of
// ageType); Address home (from "address.proto"); message Inner {} }.
func personFile(pkg string, ageType descriptorpb.FieldDescriptorProto_Type) *descriptorpb.FileDescriptorProto {
	home := ".Address"
	if pkg != "" {
		home = "." + pkg + ".Address"
	}
	return &descriptorpb.FileDescriptorProto{
		Name: gproto.String("person.proto"), Package: &pkg, Dependency: []string{"address.proto"},
		MessageType: []*descriptorpb.DescriptorProto{{
			Name:       gproto.String("Person"),
			Field:      []*descriptorpb.FieldDescriptorProto{field("age", 1, ageType, ""), field("home", 2, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, home)},
			NestedType: []*descriptorpb.DescriptorProto{{Name: gproto.String("Inner")}},
		}, {Name: gproto.String("Other")}},
	}
}

func addressFile(pkg string) *descriptorpb.FileDescriptorProto {
	return &descriptorpb.FileDescriptorProto{Name: gproto.String("address.proto"), Package: &pkg,
		MessageType: []*descriptorpb.DescriptorProto{{Name: gproto.String("Address"),
			Field: []*descriptorpb.FieldDescriptorProto{field("street", 1, descriptorpb.FieldDescriptorProto_TYPE_STRING, "")}}}}
}

// nativeSchema is a PROTOBUF_NATIVE schema document over files, as the
// official clients send it.
func nativeSchema(t testing.TB, root, rootFile string, files ...*descriptorpb.FileDescriptorProto) Schema {
	t.Helper()
	set, err := gproto.Marshal(&descriptorpb.FileDescriptorSet{File: files})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := json.Marshal(protoNative{FileDescriptorSet: set, RootMessageTypeName: root, RootFileDescriptorName: rootFile})
	if err != nil {
		t.Fatal(err)
	}
	return Schema{Type: ProtobufNative, Data: doc}
}

const (
	i32 = descriptorpb.FieldDescriptorProto_TYPE_INT32
	i64 = descriptorpb.FieldDescriptorProto_TYPE_INT64
)

// TestProtoNativeDescriptorRules: a PROTOBUF_NATIVE schema is valid only if
// its root file and everything it imports build, and its root message is
// found as Pulsar's ProtobufNativeSchemaUtils.deserialize finds it.
func TestProtoNativeDescriptorRules(t *testing.T) {
	valid := map[string]Schema{
		"root":              nativeSchema(t, "pkg.Person", "person.proto", personFile("pkg", i32), addressFile("pkg")),
		"nested":            nativeSchema(t, "pkg.Person.Inner", "person.proto", personFile("pkg", i32), addressFile("pkg")),
		"without package":   nativeSchema(t, "Person", "person.proto", personFile("", i32), addressFile("")),
		"name sans package": nativeSchema(t, "Person", "person.proto", personFile("pkg", i32), addressFile("pkg")),
		// Files nothing imports are not built, broken or not.
		"unimported broken file": nativeSchema(t, "pkg.Person", "person.proto", personFile("pkg", i32), addressFile("pkg"),
			&descriptorpb.FileDescriptorProto{Name: gproto.String("junk.proto"), Dependency: []string{"missing.proto"}}),
	}
	for name, s := range valid {
		if err := Validate(s); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	badRef := personFile("pkg", i32)
	badRef.MessageType[0].Field[1].TypeName = gproto.String(".pkg.Nowhere")
	cyclic := addressFile("pkg")
	cyclic.Dependency = []string{"person.proto"}
	invalid := map[string]Schema{
		"missing import":     nativeSchema(t, "pkg.Person", "person.proto", personFile("pkg", i32)),
		"unresolved type":    nativeSchema(t, "pkg.Person", "person.proto", badRef, addressFile("pkg")),
		"import cycle":       nativeSchema(t, "pkg.Person", "person.proto", personFile("pkg", i32), cyclic),
		"no such root file":  nativeSchema(t, "pkg.Person", "nope.proto", personFile("pkg", i32), addressFile("pkg")),
		"no such message":    nativeSchema(t, "pkg.Nobody", "person.proto", personFile("pkg", i32), addressFile("pkg")),
		"no such nested":     nativeSchema(t, "pkg.Person.Nobody", "person.proto", personFile("pkg", i32), addressFile("pkg")),
		"message elsewhere":  nativeSchema(t, "pkg.Address", "person.proto", personFile("pkg", i32), addressFile("pkg")),
		"dots only":          nativeSchema(t, "pkg..", "person.proto", personFile("pkg", i32), addressFile("pkg")),
		"descriptor garbage": {Type: ProtobufNative, Data: []byte(`{"fileDescriptorSet":"/////w==","rootMessageTypeName":"a.B","rootFileDescriptorName":"a.proto"}`)},
	}
	// The duplicate is only a problem when both files are built.
	dup := personFile("pkg", i32)
	dup.Dependency = append(dup.Dependency, "b.proto")
	f := addressFile("pkg")
	f.Name = gproto.String("b.proto")
	invalid["duplicate symbol"] = nativeSchema(t, "pkg.Person", "person.proto", dup, addressFile("pkg"), f)
	for name, s := range invalid {
		if err := Validate(s); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Validate = %v, want ErrInvalid", name, err)
		}
	}
}

// TestProtoNativeCompatibility: as Pulsar 4.x's
// ProtobufNativeSchemaCompatibilityCheck, only the full name of the root
// message decides, under every strategy: a changed field type is accepted
// (apache/pulsar#19385), another root message is not, and the same root
// message named without its package is the same one.
func TestProtoNativeCompatibility(t *testing.T) {
	v1 := nativeSchema(t, "pkg.Person", "person.proto", personFile("pkg", i32), addressFile("pkg"))
	wider := nativeSchema(t, "pkg.Person", "person.proto", personFile("pkg", i64), addressFile("pkg"))
	short := nativeSchema(t, "Person", "person.proto", personFile("pkg", i64), addressFile("pkg"))
	other := nativeSchema(t, "pkg.Other", "person.proto", personFile("pkg", i32), addressFile("pkg"))
	for st := Backward; st <= FullTransitive; st++ {
		if err := checkCompatible([]Schema{v1}, wider, st); err != nil {
			t.Errorf("%s: field type change refused: %v", st, err)
		}
		if err := checkCompatible([]Schema{v1, wider}, short, st); err != nil {
			t.Errorf("%s: root named without package refused: %v", st, err)
		}
		err := checkCompatible([]Schema{v1}, other, st)
		if !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), "Protobuf root message isn't allow change!") {
			t.Errorf("%s: root change = %v", st, err)
		}
	}
	if err := checkCompatible([]Schema{v1}, other, AlwaysCompatible); err != nil {
		t.Errorf("ALWAYS_COMPATIBLE: %v", err)
	}

	r, _ := newReg(t, Full)
	if v := mustAdd(t, r, "p/ns/pb", v1); v != 0 {
		t.Fatalf("first version %d", v)
	}
	if v := mustAdd(t, r, "p/ns/pb", wider); v != 1 {
		t.Fatalf("field change: version %d, want 1", v)
	}
	if _, err := r.AddSchema("p/ns/pb", other); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("root change registered: %v", err)
	}
}
