package auth

import "testing"

// fakeGrants is a policy store of one tenant "t" with namespace "t/ns".
type fakeGrants struct{}

func (fakeGrants) TenantAdmins(tenant string) ([]string, bool) {
	return []string{"admin"}, tenant == "t"
}

func (fakeGrants) NamespacePermissions(ns string) (map[string][]string, bool) {
	if ns != "t/ns" {
		return nil, false
	}
	return map[string][]string{"prod": {"produce"}, "cons": {"consume"}, "app-*": {"consume"}}, true
}

func (fakeGrants) TopicPermissions(string) map[string]map[string][]string {
	return map[string]map[string][]string{"persistent://t/ns/p": {"part": {"produce"}}}
}

func (fakeGrants) SubscriptionRoles(string) map[string][]string {
	return map[string][]string{"locked": {"cons"}}
}

func TestAuthorizerDecides(t *testing.T) {
	topic := Topic{Namespace: "t/ns", Full: "persistent://t/ns/x", Base: "persistent://t/ns/x"}
	partition := Topic{Namespace: "t/ns", Full: "persistent://t/ns/p-partition-0", Base: "persistent://t/ns/p"}
	missing := Topic{Namespace: "t/none", Full: "persistent://t/none/x", Base: "persistent://t/none/x"}
	a := &Authorizer{SuperUsers: []string{"root"}, Grants: fakeGrants{}}
	p := &Authorizer{ProxyRoles: []string{"proxy"}, Grants: fakeGrants{}}
	w := &Authorizer{SuperUsers: []string{"root"}, Wildcards: true, Grants: fakeGrants{}}
	for _, c := range []struct {
		name string
		got  bool
		want bool
	}{
		{"super user", a.AllowTopic("root", missing, ActProduce, ""), true},
		{"tenant admin", a.AllowTopic("admin", topic, ActConsume, "locked"), true},
		{"no role", a.AllowTopic("", topic, ActLookup, ""), false},
		{"produce grant produces", a.AllowTopic("prod", topic, ActProduce, ""), true},
		{"produce grant does not consume", a.AllowTopic("prod", topic, ActConsume, "s"), false},
		{"lookup with consume", a.AllowTopic("cons", topic, ActLookup, ""), true},
		{"missing namespace", a.AllowTopic("prod", missing, ActProduce, ""), false},
		{"subscription role", a.AllowTopic("cons", topic, ActConsume, "locked"), true},
		{"partitioned topic's grant on a partition", a.AllowTopic("part", partition, ActProduce, ""), true},
		{"topic grant elsewhere", a.AllowTopic("part", topic, ActProduce, ""), false},
		{"wildcard off", a.AllowTopic("app-1", topic, ActConsume, ""), false},
		{"wildcard on", w.AllowTopic("app-1", topic, ActConsume, ""), true},
		{"wildcard and a locked subscription", w.AllowTopic("app-1", topic, ActConsume, "locked"), false},
		{"topic list by namespace grant", a.AllowNamespaceTopics("prod", "t/ns"), true},
		{"topic list not by topic grant", a.AllowNamespaceTopics("part", "t/ns"), false},
		{"peek needs consume", a.TopicOperation("prod", TopicPeekMessages, topic, "s"), false},
		{"stats with produce", a.TopicOperation("prod", TopicGetStats, topic, ""), true},
		{"unload is the admins'", a.TopicOperation("cons", TopicUnload, topic, ""), false},
		{"clear backlog with consume", a.NamespaceOperation("cons", NsClearBacklog, "t/ns"), true},
		{"delete topic is the admins'", a.NamespaceOperation("cons", NsDeleteTopic, "t/ns"), false},
		{"proxy names an original", p.ValidOriginal("proxy", "app"), true},
		{"proxy names none", p.ValidOriginal("proxy", " "), false},
		{"proxy names a proxy", p.ValidOriginal("proxy", "proxy"), false},
		{"another role names one", p.ValidOriginal("app", ""), true},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}
