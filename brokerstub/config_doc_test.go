package brokerstub

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateConfigDoc = flag.Bool("update-config-doc", false, "rewrite the census section of docs/brokerstub-config.md")

// The census section of docs/brokerstub-config.md lies between these lines.
const (
	configDocBegin = "<!-- BEGIN census: generated from brokerstub/configkeys.tsv by " +
		"`go test ./brokerstub -run TestConfigDocListsCensus -update-config-doc`; do not edit -->"
	configDocEnd = "<!-- END census -->"
)

// renderConfigDoc writes the census as the doc's section: the counts, then
// each class with its keys grouped by reason.
func renderConfigDoc(c *configCensus) string {
	var b strings.Builder
	count := map[string]int{}
	gaps, building := 0, 0
	for _, r := range c.rows {
		count[r.Class]++
		if r.Observable && r.Class != keyHonoured {
			gaps++
			if strings.HasPrefix(r.Reason, "being implemented") {
				building++
			}
		}
	}
	fmt.Fprintf(&b, "%s\n\n", configDocBegin)
	fmt.Fprintf(&b, "%d keys: %d honoured, %d without observable effect, %d not supported. "+
		"Client-observable keys not honoured: **%d** (%d of them being implemented).\n",
		len(c.rows), count[keyHonoured], count[keyNoEffect], count[keyNotSupported], gaps, building)
	for _, sec := range []struct{ class, title, intro string }{
		{keyHonoured, "Honoured", "ParseConfig sets the Options named."},
		{keyNotSupported, "Not supported",
			"Listed in the warning at start (`not_implemented=`, `security_ignored=`): they change what a client " +
				"observes on Pulsar, and brokerstub does not do it. Keys marked † change nothing a Pulsar client or " +
				"admin client sees."},
		{keyNoEffect, "Accepted without observable effect",
			"Listed at `-log-level debug` only: they change nothing a client of a single broker can observe."},
	} {
		fmt.Fprintf(&b, "\n### %s\n\n%s\n\n", sec.title, sec.intro)
		var reasons []string
		keys := map[string][]string{}
		for _, r := range c.rows {
			if r.Class != sec.class {
				continue
			}
			if _, ok := keys[r.Reason]; !ok {
				reasons = append(reasons, r.Reason)
			}
			k := "`" + r.Key + "`"
			if sec.class == keyNotSupported && !r.Observable {
				k += " †"
			}
			keys[r.Reason] = append(keys[r.Reason], k)
		}
		for _, reason := range reasons {
			ks := keys[reason]
			slices.Sort(ks)
			fmt.Fprintf(&b, "- %s: %s\n", strings.Join(ks, ", "), reason)
		}
	}
	fmt.Fprintf(&b, "\n%s\n", configDocEnd)
	return b.String()
}

// TestConfigDocListsCensus checks that docs/brokerstub-config.md lists
// exactly the census's classes, keys and reasons (-update-config-doc
// rewrites its generated section).
func TestConfigDocListsCensus(t *testing.T) {
	c, err := census()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "docs", "brokerstub-config.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, configDocBegin), strings.Index(doc, configDocEnd)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the census markers %q ... %q", path, configDocBegin, configDocEnd)
	}
	end := j + len(configDocEnd)
	if end < len(doc) && doc[end] == '\n' {
		end++
	}
	want := renderConfigDoc(c)
	got := doc[i:end]
	if got == want {
		return
	}
	if *updateConfigDoc {
		if err := os.WriteFile(path, []byte(doc[:i]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s does not list the census of configkeys.tsv; run go test ./brokerstub -run TestConfigDocListsCensus -update-config-doc", path)
	for _, r := range c.rows {
		if !strings.Contains(got, "`"+r.Key+"`") {
			t.Errorf("the doc lacks %s", r.Key)
		}
	}
}
