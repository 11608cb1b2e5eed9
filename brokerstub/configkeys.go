package brokerstub

import (
	_ "embed"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// configKeysTSV is the census of Pulsar's broker configuration keys: every
// key of Pulsar's conf/standalone.conf and conf/broker.conf (and of the
// official Go client's CI standalone.conf), classed as honoured, no-effect
// or not-supported, with the reason. Its header says which files and
// commits it covers; docs/brokerstub-config.md is rendered from it.
//
//go:embed configkeys.tsv
var configKeysTSV string

// The classes of the census.
const (
	keyHonoured     = "honoured"      // ParseConfig acts on it
	keyNoEffect     = "no-effect"     // accepted; no effect a client can observe
	keyNotSupported = "not-supported" // changes what a client observes; not implemented
)

// configKey is one row of the census.
type configKey struct {
	Key        string
	Class      string // keyHonoured, keyNoEffect or keyNotSupported
	Observable bool   // changes what a client sees over the protocol or the admin API
	Sources    []string
	Reason     string
}

// configCensus is the parsed census: rows in file order, exact keys, and
// the prefixes (rows whose key ends in '*').
type configCensus struct {
	rows     []configKey
	byKey    map[string]*configKey
	prefixes []*configKey
}

// census parses the embedded census once.
var census = sync.OnceValues(func() (*configCensus, error) { return parseCensus(configKeysTSV) })

// parseCensus reads the census TSV: '#' lines are comments; each other line
// is key, class, observable (yes/no), sources (comma-separated), reason.
func parseCensus(s string) (*configCensus, error) {
	c := &configCensus{byKey: map[string]*configKey{}}
	for i, line := range strings.Split(s, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			return nil, fmt.Errorf("configkeys.tsv line %d: want 5 tab-separated fields, got %d", i+1, len(f))
		}
		switch f[1] {
		case keyHonoured, keyNoEffect, keyNotSupported:
		default:
			return nil, fmt.Errorf("configkeys.tsv line %d: class %q of %s is not honoured, no-effect or not-supported", i+1, f[1], f[0])
		}
		if f[2] != "yes" && f[2] != "no" {
			return nil, fmt.Errorf("configkeys.tsv line %d: observable %q of %s is not yes or no", i+1, f[2], f[0])
		}
		if _, dup := c.byKey[f[0]]; dup || f[0] == "" || f[4] == "" {
			return nil, fmt.Errorf("configkeys.tsv line %d: key %q is empty, repeated or without a reason", i+1, f[0])
		}
		c.rows = append(c.rows, configKey{Key: f[0], Class: f[1], Observable: f[2] == "yes",
			Sources: strings.Split(f[3], ","), Reason: f[4]})
	}
	for i := range c.rows {
		k := &c.rows[i]
		c.byKey[k.Key] = k
		if strings.HasSuffix(k.Key, "*") {
			c.prefixes = append(c.prefixes, k)
		}
	}
	return c, nil
}

// lookup returns the census row of key (exact, else by prefix), nil for a
// key the census does not know.
func (c *configCensus) lookup(key string) *configKey {
	if k := c.byKey[key]; k != nil {
		return k
	}
	for _, p := range c.prefixes {
		if strings.HasPrefix(key, strings.TrimSuffix(p.Key, "*")) {
			return p
		}
	}
	return nil
}

// nearest returns the known key closest to key by edit distance, ignoring
// case.
func (c *configCensus) nearest(key string) string {
	best, bestD := "", -1
	lk := strings.ToLower(key)
	for _, r := range c.rows {
		if strings.HasSuffix(r.Key, "*") {
			continue
		}
		if d := editDistance(lk, strings.ToLower(r.Key)); bestD < 0 || d < bestD {
			best, bestD = r.Key, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// ErrUnknownConfigKey is matched (errors.Is) by an *UnknownConfigKeyError.
var ErrUnknownConfigKey = errors.New("unknown config key")

// UnknownConfigKeyError is ParseConfig's error for keys that are in no
// class of brokerstub's census of Pulsar's configuration (a typo, or a key
// of a newer Pulsar, or one only in Pulsar's ServiceConfiguration).
type UnknownConfigKeyError struct {
	// Keys are the unknown keys, sorted.
	Keys []string
	// Nearest holds, for each of Keys, the known key nearest to it.
	Nearest []string
}

func (e *UnknownConfigKeyError) Error() string {
	var b strings.Builder
	for i, k := range e.Keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (did you mean %s?)", k, e.Nearest[i])
	}
	return fmt.Sprintf("unknown config key %s; fix the key, or start with -ignore-unknown-config-keys "+
		"(ConfigOptions.IgnoreUnknownKeys) to accept it without effect", b.String())
}

// Unwrap returns ErrUnknownConfigKey.
func (e *UnknownConfigKeyError) Unwrap() error { return ErrUnknownConfigKey }

// ConfigOptions changes how ParseConfigWith reads a file.
type ConfigOptions struct {
	// IgnoreUnknownKeys accepts keys that are in no class of the census,
	// listing them in Config.Unknown instead of failing with an
	// *UnknownConfigKeyError. Default false.
	IgnoreUnknownKeys bool
}

// classify sorts the keys of kv that the parser did not read into cfg's
// lists by their census class: no-effect keys into NoEffect, not-supported
// ones into Security or Ignored, unknown ones into Unknown (an error unless
// co.IgnoreUnknownKeys). A key the census calls honoured that the parser
// did not read is listed as Ignored, so that it is warned about.
func (cfg *Config) classify(kv map[string]string, read map[string]bool, co ConfigOptions) error {
	c, err := census()
	if err != nil {
		return err
	}
	var nearest []string
	for k := range kv {
		if read[k] {
			continue
		}
		row := c.lookup(k)
		switch {
		case row == nil:
			cfg.Unknown = append(cfg.Unknown, k)
		case row.Class == keyNoEffect:
			cfg.NoEffect = append(cfg.NoEffect, k)
		case isSecurityKey(k):
			cfg.Security = append(cfg.Security, k)
		default:
			cfg.Ignored = append(cfg.Ignored, k)
		}
	}
	for _, l := range [][]string{cfg.Ignored, cfg.Security, cfg.NoEffect, cfg.Unknown} {
		sort.Strings(l)
	}
	if len(cfg.Unknown) == 0 || co.IgnoreUnknownKeys {
		return nil
	}
	for _, k := range cfg.Unknown {
		nearest = append(nearest, c.nearest(k))
	}
	return &UnknownConfigKeyError{Keys: cfg.Unknown, Nearest: nearest}
}
