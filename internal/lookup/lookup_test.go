package lookup

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
)

func TestParseServiceURL(t *testing.T) {
	for in, want := range map[string][]string{
		"http://a:8080":              {"http", "a:8080"},
		"https://a,b:8443/":          {"https", "a", "b:8443"},
		"pulsar://[::1]:6650,h:6650": {"pulsar", "[::1]:6650", "h:6650"},
	} {
		scheme, hosts, err := parseServiceURL(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, append([]string{scheme}, hosts...), in)
	}
	for _, bad := range []string{"", "localhost:8080", "http://", "http://a,,b", "://a"} {
		_, _, err := parseServiceURL(bad)
		assert.Error(t, err, bad)
	}
	_, err := New("ftp://a:21", Options{})
	assert.ErrorContains(t, err, "scheme must be pulsar, pulsar+ssl, http or https")
}

func TestHTTPDefaultPortsAndTLSHost(t *testing.T) {
	h := newHTTP("https", []string{"a", "b:9443"}, Options{})
	assert.Equal(t, []string{"a:8443", "b:9443"}, h.hosts)
	h = newHTTP("http", []string{"a"}, Options{})
	assert.Equal(t, []string{"a:8080"}, h.hosts)
	host, ok := TLSHost("https://broker.example:8443,other:8443")
	assert.True(t, ok)
	assert.Equal(t, "broker.example", host)
	_, ok = TLSHost("http://broker.example:8080")
	assert.False(t, ok)
}

func TestAuthHeader(t *testing.T) {
	data := func() ([]byte, error) { return []byte("user:pass"), nil }
	v, err := authHeader("token", data)()
	require.NoError(t, err)
	assert.Equal(t, "Bearer user:pass", v)
	v, err = authHeader("basic", data)()
	require.NoError(t, err)
	assert.Equal(t, "Basic dXNlcjpwYXNz", v)
	v, err = authHeader("token", func() ([]byte, error) { return []byte("tok\n"), nil })()
	require.NoError(t, err)
	assert.Equal(t, "Bearer tok", v, "a token file's newline is trimmed, as the official client does")
	assert.Nil(t, authHeader("tls", data), "no header for a method HTTP cannot carry")
	assert.Nil(t, authHeader("token", nil))
}

func TestStatusErrorIsABrokerError(t *testing.T) {
	err := statusError(http.StatusNotFound, strings.NewReader(`{"reason":"Topic not found"}`))
	var se *conn.ServerError
	require.True(t, errors.As(err, &se))
	assert.Equal(t, proto.ServerError_TopicNotFound, se.Code)
	assert.Equal(t, "Topic not found", se.Message)
	assert.False(t, conn.IsRetriable(err))

	assert.True(t, conn.IsRetriable(statusError(http.StatusServiceUnavailable, strings.NewReader(""))))
	assert.True(t, conn.IsRetriable(statusError(http.StatusBadGateway, strings.NewReader("<html>"))))
	assert.False(t, errors.As(statusError(http.StatusConflict, strings.NewReader("x")), &se))

	// Pulsar answers 401 both to bad credentials and to a lookup the role
	// may not make; the reason tells them apart.
	for reason, want := range map[string]proto.ServerError{
		"Authentication required": proto.ServerError_AuthenticationError,
		"Unauthorized to validateTopicOperation for operation [LOOKUP] on topic [persistent://a/b/c]": proto.ServerError_AuthorizationError,
		"Don't have permission to connect to this namespace":                                          proto.ServerError_AuthorizationError,
	} {
		body, _ := json.Marshal(map[string]string{"reason": reason})
		require.True(t, errors.As(statusError(http.StatusUnauthorized, bytes.NewReader(body)), &se), reason)
		assert.Equal(t, want, se.Code, reason)
	}

	// A long error body is read only so far.
	err = statusError(http.StatusInternalServerError, strings.NewReader(strings.Repeat("x", 1<<20)))
	var st *StatusError
	require.True(t, errors.As(err, &st))
	assert.Len(t, st.Reason, maxReasonBody)
}
