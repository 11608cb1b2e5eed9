package auth

import (
	"errors"
	"slices"
	"testing"
	"time"
)

func TestApr1(t *testing.T) {
	// openssl's vector: openssl passwd -apr1 -salt abcdefgh password.
	if got := apr1("password", "abcdefgh"); got != "$apr1$abcdefgh$FBwExRW4dCc8aL.OvjpIE1" {
		t.Fatalf("apr1 = %s", got)
	}
}

func TestWildcardMatch(t *testing.T) {
	if !WildcardMatch("*", "anyone") || WildcardMatch("app-*", "ap") || !WildcardMatch("*.prod", "svc.prod") || WildcardMatch("", "x") {
		t.Error("WildcardMatch")
	}
	grants := map[string][]string{"app-*": {"produce"}, "*.prod": {"consume"}, "app-1": {"functions"}}
	got := WildcardActions(grants, "app-1.prod")
	slices.Sort(got)
	if !slices.Equal(got, []string{"consume", "produce"}) {
		t.Errorf("WildcardActions = %v, want the two wildcard grants only", got)
	}
	if WildcardActions(grants, "") != nil {
		t.Error("the empty role matched a wildcard")
	}
}

func TestCheckValidity(t *testing.T) {
	now := time.Unix(1000, 0)
	for _, c := range []struct {
		id Identity
		ok bool
	}{
		{Identity{Role: "a"}, true},
		{Identity{Role: "a", Expires: now}, false},
		{Identity{Role: "a", Expires: now.Add(time.Second)}, true},
		{Identity{Role: "a", NotBefore: now.Add(time.Second)}, false},
		{Identity{Role: "a", NotBefore: now}, true},
	} {
		err := CheckValidity(c.id, now)
		if (err == nil) != c.ok || err != nil && !errors.Is(err, ErrRefused) {
			t.Errorf("%+v: %v", c.id, err)
		}
	}
}

func TestOpsNamed(t *testing.T) {
	if !TopicPeekMessages.Named() || TopicPeekMessages.String() != "PEEK_MESSAGES" || TopicPeekMessages.Scope() != ScopeTopic {
		t.Errorf("TopicPeekMessages: %v %v", TopicPeekMessages, TopicPeekMessages.Scope())
	}
	if Op(0).Named() || Op(0).String() != "UNDECLARED" {
		t.Error("the zero Op is named")
	}
}
