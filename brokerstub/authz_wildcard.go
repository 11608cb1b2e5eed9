package brokerstub

import "strings"

// wildcardActions returns the actions grants (role -> actions) give to
// granted roles that match role by a wildcard, with
// Options.AuthorizationAllowWildcardsMatching, as Pulsar's
// PulsarAuthorizationProvider: a granted role ending in '*' matches the
// roles that start with what precedes it ("app-*", and "*" every role), one
// starting with '*' the roles that end with what follows it ("*.prod").
// Only permissions match so (namespace and topic grants, not super users,
// tenant admins or subscription roles).
func (b *Broker) wildcardActions(grants map[string][]string, role string) []string {
	if !b.opts.AuthorizationAllowWildcardsMatching || role == "" {
		return nil
	}
	var out []string
	for granted, actions := range grants {
		if wildcardMatch(granted, role) {
			out = append(out, actions...)
		}
	}
	return out
}

func wildcardMatch(granted, role string) bool {
	if granted == "" {
		return false
	}
	return strings.HasSuffix(granted, "*") && strings.HasPrefix(role, granted[:len(granted)-1]) ||
		strings.HasPrefix(granted, "*") && strings.HasSuffix(role, granted[1:])
}
