package avro

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// The names of named types and the readers of a type's attributes.

// named reads the name, namespace and aliases of a named type.
func (p *parser) named(ns string, m map[string]any) (*node, error) {
	name, err := str(m, "name")
	if err != nil {
		return nil, err
	}
	space, err := str(m, "namespace")
	if err != nil {
		return nil, err
	}
	aliases, err := strs(m, "aliases")
	if err != nil {
		return nil, err
	}
	if name == "" {
		return nil, errors.New("avro: non-empty name key required")
	}
	if space == "" {
		space = ns
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		space, name = name[:i], name[i+1:]
	}
	full := name
	if space != "" {
		full = space + "." + name
	}
	for part := range strings.SplitSeq(full, ".") {
		if err := validateName(part); err != nil {
			return nil, fmt.Errorf("avro: invalid name part %q in name %q: %w", part, full, err)
		}
	}
	n := &node{name: name, namespace: space, full: full}
	for _, a := range aliases {
		if !strings.Contains(a, ".") {
			if err := validateName(a); err != nil {
				return nil, fmt.Errorf("avro: invalid name %q: %w", a, err)
			}
			n.aliases = append(n.aliases, fullName(space, a))
			continue
		}
		for part := range strings.SplitSeq(a, ".") {
			if err := validateName(part); err != nil {
				return nil, fmt.Errorf("avro: invalid name part %q in name %q: %w", part, a, err)
			}
		}
		n.aliases = append(n.aliases, a)
	}
	return n, nil
}

// define makes a named type resolvable by its full name and aliases.
func (p *parser) define(n *node) error {
	if p.defined[n.full] {
		return fmt.Errorf("duplicate name %q", n.full)
	}
	p.defined[n.full] = true
	p.names[n.full] = n
	for _, a := range n.aliases {
		p.names[a] = n
	}
	return nil
}

func validateName(name string) error {
	if name == "" {
		return errors.New("name must be a non-empty")
	}
	for i, r := range name {
		letter := r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == '_'
		if !letter && (i == 0 || r < '0' || r > '9') {
			return fmt.Errorf("invalid name %s", name)
		}
	}
	return nil
}

// str is the string attribute key of m, "" when absent or null.
func str(m map[string]any, key string) (string, error) {
	switch v := m[key].(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	default:
		return "", fmt.Errorf("avro: attribute %q is %T, not a string", key, v)
	}
}

// strs is the array-of-strings attribute key of m.
func strs(m map[string]any, key string) ([]string, error) {
	v, ok := m[key].([]any)
	if !ok {
		if m[key] == nil {
			return nil, nil
		}
		return nil, fmt.Errorf("avro: attribute %q is %T, not an array", key, m[key])
	}
	out := make([]string, 0, len(v))
	for _, e := range v {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("avro: attribute %q holds %T, not a string", key, e)
		}
		out = append(out, s)
	}
	return out, nil
}

// integer is the numeric attribute key of m, truncated to an int; 0 when
// absent or null.
func integer(m map[string]any, key string) (int, error) {
	switch v := m[key].(type) {
	case nil:
		return 0, nil
	case float64:
		if v > math.MaxInt32 || v < math.MinInt32 {
			return 0, fmt.Errorf("avro: attribute %q is out of range: %v", key, v)
		}
		return int(v), nil
	default:
		return 0, fmt.Errorf("avro: attribute %q is %T, not a number", key, v)
	}
}

// props is the attributes of m that are none of the lists'.
func props(m map[string]any, lists ...[]string) map[string]any {
	var out map[string]any
next:
	for k, v := range m {
		for _, l := range lists {
			for _, a := range l {
				if k == a {
					continue next
				}
			}
		}
		if out == nil {
			out = map[string]any{}
		}
		out[k] = v
	}
	return out
}
