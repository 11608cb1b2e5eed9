package pulsar

import (
	"encoding/json"
	"fmt"
	"strings"
)

// NewAuthentication returns the authentication method named name, with
// params in one of the formats the Pulsar clients accept: a JSON object of
// strings (`{"tlsCertFile":"/c.pem","tlsKeyFile":"/k.pem"}`), or
// "key:value" pairs separated by commas ("tlsCertFile:/c.pem,tlsKeyFile:/k.pem").
// The names are the official client's, short or as Java class names:
//
//	""                                                         none
//	"tls", "org.apache.pulsar.client.impl.auth.AuthenticationTls"      tlsCertFile, tlsKeyFile
//	"token", "org.apache.pulsar.client.impl.auth.AuthenticationToken"  token, or file (a path or file:// URL);
//	                                                           also "token:<jwt>", "file:///path" or the bare token
//	"basic", "org.apache.pulsar.client.impl.auth.AuthenticationBasic"  username (or Java's userId), password
//	"oauth2", "org.apache.pulsar.client.impl.auth.oauth2.AuthenticationOAuth2"
//	                                                           the parameters of NewAuthenticationOAuth2
//	"athenz", "org.apache.pulsar.client.impl.auth.AuthenticationAthenz"
//	                                                           ErrAthenzNotSupported
//
// Malformed params, a missing parameter or an unknown name return an error
// wrapping ErrAuthenticationParams.
func NewAuthentication(name string, params string) (Authentication, error) {
	switch name {
	case "":
		return authDisabled{}, nil
	case "token", "org.apache.pulsar.client.impl.auth.AuthenticationToken":
		return tokenFromParams(params)
	case "athenz", "org.apache.pulsar.client.impl.auth.AuthenticationAthenz":
		return nil, ErrAthenzNotSupported
	}
	m, err := parseAuthParams(params)
	if err != nil {
		return nil, err
	}
	switch name {
	case "tls", "org.apache.pulsar.client.impl.auth.AuthenticationTls":
		if m["tlsCertFile"] == "" || m["tlsKeyFile"] == "" {
			return nil, fmt.Errorf("%w: tls: tlsCertFile and tlsKeyFile are required", ErrAuthenticationParams)
		}
		return NewAuthenticationTLS(m["tlsCertFile"], m["tlsKeyFile"]), nil
	case "basic", "org.apache.pulsar.client.impl.auth.AuthenticationBasic":
		user := m["username"]
		if user == "" {
			user = m["userId"]
		}
		return NewAuthenticationBasic(user, m["password"])
	case "oauth2", "org.apache.pulsar.client.impl.auth.oauth2.AuthenticationOAuth2":
		a, err := newOAuth2(m)
		if err != nil {
			return nil, err
		}
		return a, nil
	}
	return nil, fmt.Errorf("%w: invalid auth provider '%s'", ErrAuthenticationParams, name)
}

// tokenFromParams reads the token method's params: JSON or pairs with
// "token" or "file", or Java's "token:<jwt>" / "file:<url>" / bare token.
func tokenFromParams(params string) (Authentication, error) {
	p := strings.TrimSpace(params)
	switch {
	case strings.HasPrefix(p, "{"):
		m, err := parseAuthParams(p)
		if err != nil {
			return nil, err
		}
		switch {
		case m["token"] != "":
			return NewAuthenticationToken(m["token"]), nil
		case m["file"] != "":
			return NewAuthenticationTokenFromFile(strings.TrimPrefix(m["file"], "file://")), nil
		}
		return nil, fmt.Errorf("%w: token: missing configuration for token auth", ErrAuthenticationParams)
	case strings.HasPrefix(p, "token:"):
		return NewAuthenticationToken(strings.TrimPrefix(p, "token:")), nil
	case strings.HasPrefix(p, "file:"):
		return NewAuthenticationTokenFromFile(strings.TrimPrefix(strings.TrimPrefix(p, "file:"), "//")), nil
	case p == "":
		return nil, fmt.Errorf("%w: token: missing configuration for token auth", ErrAuthenticationParams)
	}
	return NewAuthenticationToken(p), nil
}

// maxAuthParams bounds the params string parsed.
const maxAuthParams = 64 << 10

// parseAuthParams parses a JSON object of strings or "k:v,k:v" pairs (the
// value is what follows the first colon, so paths and URLs keep theirs).
func parseAuthParams(params string) (map[string]string, error) {
	if len(params) > maxAuthParams {
		return nil, fmt.Errorf("%w: params longer than %d bytes", ErrAuthenticationParams, maxAuthParams)
	}
	p := strings.TrimSpace(params)
	m := map[string]string{}
	if p == "" {
		return m, nil
	}
	if strings.HasPrefix(p, "{") {
		if err := json.Unmarshal([]byte(p), &m); err != nil {
			return nil, fmt.Errorf("%w: params are not a JSON object of strings: %w", ErrAuthenticationParams, err)
		}
		return m, nil
	}
	for pair := range strings.SplitSeq(p, ",") {
		k, v, ok := strings.Cut(pair, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%w: params pair %q is not key:value", ErrAuthenticationParams, pair)
		}
		m[k] = strings.TrimSpace(v)
	}
	return m, nil
}
