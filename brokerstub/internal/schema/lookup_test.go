package schema

import "testing"

// SetLookup supplies the namespace and topic policies that SetPolicy did
// not set, each field inheriting from the level above; SetPolicy's wins.
func TestSchemaPolicyLookup(t *testing.T) {
	r, _ := newReg(t, Backward)
	no := false
	calls := map[string]int{}
	r.SetLookup(func(scope string) (Policy, bool) {
		calls[scope]++
		switch scope {
		case "t/ns":
			return Policy{Strategy: AlwaysIncompatible, AutoUpdate: &no}, true
		case "t/ns/topic":
			return Policy{Strategy: Forward}, true
		}
		return Policy{}, false
	})
	if got := r.Effective("t/ns/topic"); got.Strategy != Forward || got.AutoUpdate == nil || *got.AutoUpdate {
		t.Fatalf("topic over namespace: %+v", got)
	}
	if got := r.Effective("t/ns/other"); got.Strategy != AlwaysIncompatible {
		t.Fatalf("namespace over broker: %+v", got)
	}
	if got := r.Effective("t/other/x"); got.Strategy != Backward || got.AutoUpdate != nil {
		t.Fatalf("broker's: %+v", got)
	}
	r.SetPolicy("t/ns/topic", Policy{Strategy: Full})
	if got := r.Effective("t/ns/topic"); got.Strategy != Full {
		t.Fatalf("SetPolicy over the lookup: %+v", got)
	}
	if calls["t/ns"] == 0 {
		t.Fatal("lookup never asked for the namespace")
	}
}
