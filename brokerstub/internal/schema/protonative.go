package schema

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	gproto "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// This file holds PROTOBUF_NATIVE schemas as Pulsar 4.x reads and checks
// them. The schema data is a JSON document (ProtobufNativeSchemaData) with a
// serialized FileDescriptorSet, the name of the root file in it and the
// name of the root message. Pulsar's ProtobufNativeSchemaUtils.deserialize
// builds the root file and, recursively, the files it imports (each must be
// in the set; files nothing imports are not looked at), which validates
// them as protobuf's descriptor builder does, then finds the root message:
// the root message name with the file's package removed (its first match,
// the package read as a pattern) and then its first dot, split at dots, is
// a top-level message and its nested messages. Data that does not get that
// far is invalid.
//
// ProtobufNativeSchemaCompatibilityCheck then compares only the full name
// of the root message, under every strategy but ALWAYS_COMPATIBLE: fields
// may change in any way (apache/pulsar#19385; PIP-246 would check them but
// is not part of Pulsar 4.x).

// protoNative is Pulsar's ProtobufNativeSchemaData.
type protoNative struct {
	FileDescriptorSet      []byte `json:"fileDescriptorSet"`
	RootMessageTypeName    string `json:"rootMessageTypeName"`
	RootFileDescriptorName string `json:"rootFileDescriptorName"`
}

// maxImportDepth bounds the chain of imports followed from the root file
// (the set itself is bounded by the size of the schema data).
const maxImportDepth = 100

// parseProtoNative reads a PROTOBUF_NATIVE schema and returns its root
// message, as Pulsar's deserialize (see the top of this file). Errors wrap
// ErrInvalid.
func parseProtoNative(data []byte) (protoreflect.MessageDescriptor, error) {
	var p protoNative
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%w: PROTOBUF_NATIVE schema is not a descriptor document: %v", ErrInvalid, err)
	}
	if len(p.FileDescriptorSet) == 0 || p.RootMessageTypeName == "" || p.RootFileDescriptorName == "" {
		return nil, fmt.Errorf("%w: PROTOBUF_NATIVE schema lacks fileDescriptorSet, rootMessageTypeName or rootFileDescriptorName", ErrInvalid)
	}
	var set descriptorpb.FileDescriptorSet
	if err := gproto.Unmarshal(p.FileDescriptorSet, &set); err != nil {
		return nil, fmt.Errorf("%w: deserialize ProtobufNative Schema failed: fileDescriptorSet: %v", ErrInvalid, err)
	}
	b := fileBuilder{protos: map[string]*descriptorpb.FileDescriptorProto{}, files: new(protoregistry.Files),
		built: map[string]protoreflect.FileDescriptor{}, building: map[string]bool{}}
	for _, f := range set.GetFile() {
		b.protos[f.GetName()] = f
	}
	root, err := b.build(p.RootFileDescriptorName, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: deserialize ProtobufNative Schema failed: %v", ErrInvalid, err)
	}
	md, err := rootMessage(root, p.RootMessageTypeName)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return md, nil
}

// fileBuilder builds the files of a descriptor set on demand, imports
// first.
type fileBuilder struct {
	protos   map[string]*descriptorpb.FileDescriptorProto
	files    *protoregistry.Files
	built    map[string]protoreflect.FileDescriptor
	building map[string]bool // on the current import chain: a cycle
}

func (b *fileBuilder) build(name string, depth int) (protoreflect.FileDescriptor, error) {
	if fd, ok := b.built[name]; ok {
		return fd, nil
	}
	fp, ok := b.protos[name]
	switch {
	case !ok:
		return nil, fmt.Errorf("file %q is not in the fileDescriptorSet", name)
	case b.building[name]:
		return nil, fmt.Errorf("file %q imports itself", name)
	case depth > maxImportDepth:
		return nil, fmt.Errorf("imports nested deeper than %d files", maxImportDepth)
	}
	b.building[name] = true
	for _, dep := range fp.GetDependency() {
		if _, err := b.build(dep, depth+1); err != nil {
			return nil, err
		}
	}
	delete(b.building, name)
	fd, err := protodesc.NewFile(fp, b.files)
	if err != nil {
		return nil, err
	}
	if err := b.files.RegisterFile(fd); err != nil {
		return nil, err
	}
	b.built[name] = fd
	return fd, nil
}

// rootMessage finds the root message named name in file fd the way
// Pulsar's deserialize does (see the top of this file).
func rootMessage(fd protoreflect.FileDescriptor, name string) (protoreflect.MessageDescriptor, error) {
	rest := name
	if pkg := string(fd.Package()); pkg != "" {
		re, err := regexp.Compile(pkg)
		if err != nil {
			return nil, fmt.Errorf("package %q: %v", pkg, err)
		}
		if loc := re.FindStringIndex(rest); loc != nil {
			rest = rest[:loc[0]] + rest[loc[1]:]
		}
	}
	rest = strings.Replace(rest, ".", "", 1)
	paths := strings.Split(rest, ".")
	for len(paths) > 0 && paths[len(paths)-1] == "" {
		paths = paths[:len(paths)-1] // as Java's String.split
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("protobuf root message %q names no message", name)
	}
	md := fd.Messages().ByName(protoreflect.Name(paths[0]))
	for _, p := range paths[1:] {
		if md == nil {
			break
		}
		md = md.Messages().ByName(protoreflect.Name(p))
	}
	if md == nil {
		return nil, fmt.Errorf("protobuf root message %q not found in file %s: please recheck rootMessageTypeName or rootFileDescriptorName", name, fd.Path())
	}
	return md, nil
}

// checkProtoNative is Pulsar's ProtobufNativeSchemaCompatibilityCheck: the
// root message's full name may not change (see the top of this file).
func checkProtoNative(from []Schema, to []byte) error {
	t, err := parseProtoNative(to)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrIncompatible, err)
	}
	for _, f := range from {
		p, err := parseProtoNative(f.Data)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrIncompatible, err)
		}
		if p.FullName() != t.FullName() {
			//lint:ignore ST1005 Pulsar's words, as its clients see them
			return fmt.Errorf("%w: Protobuf root message isn't allow change!", ErrIncompatible)
		}
	}
	return nil
}
