package auth

import "strings"

// WildcardActions returns the actions grants (role -> actions) give to
// granted roles that match role by a wildcard (the caller asks only with
// Options.AuthorizationAllowWildcardsMatching on), as Pulsar's
// PulsarAuthorizationProvider: a granted role ending in '*' matches the
// roles that start with what precedes it ("app-*", and "*" every role), one
// starting with '*' the roles that end with what follows it ("*.prod").
// Only permissions match so (namespace and topic grants, not super users,
// tenant admins or subscription roles).
func WildcardActions(grants map[string][]string, role string) []string {
	if role == "" {
		return nil
	}
	var out []string
	for granted, actions := range grants {
		if WildcardMatch(granted, role) {
			out = append(out, actions...)
		}
	}
	return out
}

// WildcardMatch reports whether the granted role matches role.
func WildcardMatch(granted, role string) bool {
	if granted == "" {
		return false
	}
	return strings.HasSuffix(granted, "*") && strings.HasPrefix(role, granted[:len(granted)-1]) ||
		strings.HasPrefix(granted, "*") && strings.HasSuffix(role, granted[1:])
}
