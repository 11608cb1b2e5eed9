package topicname

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	cases := map[string]Name{
		"t":                              {Full: "persistent://public/default/t", Domain: "persistent", Namespace: "public/default", Base: "persistent://public/default/t", Partition: -1},
		"a/b/t-partition-3":              {Full: "persistent://a/b/t-partition-3", Domain: "persistent", Namespace: "a/b", Base: "persistent://a/b/t", Partition: 3},
		"non-persistent://a/b/t":         {Full: "non-persistent://a/b/t", Domain: "non-persistent", Namespace: "a/b", Base: "non-persistent://a/b/t", Partition: -1},
		"persistent://a/b/t-partition-x": {Full: "persistent://a/b/t-partition-x", Domain: "persistent", Namespace: "a/b", Base: "persistent://a/b/t-partition-x", Partition: -1},
	}
	for in, want := range cases {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "a/t", "http://a/b/t", "persistent://a//t", "persistent://a/b/c/d"} {
		if _, err := Parse(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q) err = %v", bad, err)
		}
	}
	if got := PartitionName("persistent://a/b/t", 2); got != "persistent://a/b/t-partition-2" {
		t.Errorf("PartitionName = %q", got)
	}
}
