package brokerstub

import (
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/internal/typecheck"
)

const engineImportPath = "github.com/pulsargo/sdk/brokerstub/internal/engine"

// engineStateTypes are the engine's types that own a topic's state: the
// binary protocol and the HTTP side use them through methods only, run on
// the topic's goroutine (issue #34). Every unexported engine type (the
// counters, the access state, a producer's dedup state...) counts too;
// the exported others are data: a request, a refusal, a typed admin view.
var engineStateTypes = []string{"Engine", "Topic", "Subscription", "Consumer", "Producer"}

// engineStateUses type-checks the room importPath in dir (with extra files
// planted) and returns each place it names a field of an engine type
// that holds state, as "file:line: Type.field".
func engineStateUses(t *testing.T, dir, importPath string, extra map[string]string) []string {
	t.Helper()
	pkg, info, fset, err := typecheck.DirWith(dir, importPath, extra)
	if err != nil {
		t.Fatal(err)
	}
	// The struct each engine field belongs to, by the field.
	owner := map[*types.Var]string{}
	for _, imp := range pkg.Imports() {
		if imp.Path() != engineImportPath {
			continue
		}
		for _, name := range imp.Scope().Names() {
			tn, ok := imp.Scope().Lookup(name).(*types.TypeName)
			if !ok {
				continue
			}
			if st, ok := tn.Type().Underlying().(*types.Struct); ok {
				for f := range st.Fields() {
					owner[f] = name
				}
			}
		}
	}
	var uses []string
	for id, obj := range info.Uses { // selections and composite-literal keys
		v, ok := obj.(*types.Var)
		if !ok || !v.IsField() || v.Pkg() == nil || v.Pkg().Path() != engineImportPath {
			continue
		}
		typ, known := owner[v]
		if known && !slices.Contains(engineStateTypes, typ) && token.IsExported(typ) {
			continue // data
		}
		if !known {
			typ = "(a struct inside one)" // a field of an unnamed or unexported struct
		}
		p := fset.Position(id.Pos())
		uses = append(uses, p.Filename[strings.LastIndex(p.Filename, "/")+1:]+":"+strconv.Itoa(p.Line)+": "+typ+"."+v.Name())
	}
	slices.Sort(uses)
	return uses
}

// TestRoomsUseEngineThroughMethods: the binary protocol and the HTTP side
// name no field of a topic, subscription, consumer, producer or the
// engine; what they need of the data path is an engine method, run on the
// topic's goroutine, listed in their own Engine interface
// (internal/protocol/engine.go, internal/admin/engine.go).
func TestRoomsUseEngineThroughMethods(t *testing.T) {
	for _, room := range []string{"protocol", "admin"} {
		for _, u := range engineStateUses(t, "internal/"+room, rootImportPath+"/internal/"+room, nil) {
			t.Errorf("internal/%s/%s: engine state through a field; add an engine method for what it does (engine/%s_ops*.go)", room, u, room)
		}
	}
}

// TestEngineStateUsesFindsAField plants field reads in the protocol room:
// a topic's, a consumer's, one reached through another, and a data type's,
// which may be read. (What the engine does not export, the compiler keeps
// out already.)
func TestEngineStateUsesFindsAField(t *testing.T) {
	planted := `package protocol

import "github.com/pulsargo/sdk/brokerstub/internal/engine"

func planted(t *engine.Topic, c *engine.Consumer, r engine.Refusal) (any, any, any, string) {
	return t.Subs["s"].Cur, c.Permits, t.Led, r.Text
}
`
	got := engineStateUses(t, "internal/protocol", rootImportPath+"/internal/protocol", map[string]string{"planted.go": planted})
	want := []string{"planted.go:6: Consumer.Permits", "planted.go:6: Subscription.Cur", "planted.go:6: Topic.Led", "planted.go:6: Topic.Subs"}
	if !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}
