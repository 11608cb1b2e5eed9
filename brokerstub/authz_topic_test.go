package brokerstub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

const topicPermsPath = "/admin/v2/persistent/private/auth/t/permissions"

func TestTopicPermissionsGrantedOnOneTopic(t *testing.T) {
	b := newAuthzBroker(t, "")
	const topic, other = "persistent://private/auth/t", "persistent://private/auth/other"
	rc := b.as("alice")
	require.False(t, rc.produce(topic), "no grant yet")

	code, body := b.do("admin", http.MethodPost, topicPermsPath+"/alice", `["produce"]`)
	require.Equal(t, http.StatusNoContent, code, body)
	assert.Equal(t, proto.CommandLookupTopicResponse_Connect, lookupRaw(rc, topic).GetResponse())
	assert.True(t, rc.produce(topic), "produce granted on the topic")
	assert.False(t, b.as("alice").subscribe(topic, "s"), "consume not granted")
	lk := lookupRaw(b.as("alice"), other)
	assert.Equal(t, proto.ServerError_AuthorizationError, lk.GetError(), "a grant on t opens no other topic")
	assert.False(t, b.as("alice").produce(other))

	// The topic's permissions are the namespace's united with its own.
	code, body = b.do("admin", http.MethodPost, topicPermsPath+"/producer", `["consume"]`)
	require.Equal(t, http.StatusNoContent, code, body)
	code, body = b.do("admin", http.MethodGet, topicPermsPath, "")
	require.Equal(t, http.StatusOK, code, body)
	var perms map[string][]string
	require.NoError(t, json.Unmarshal([]byte(body), &perms))
	assert.Equal(t, map[string][]string{"alice": {"produce"}, "producer": {"consume", "produce"}, "consumer": {"consume"}}, perms)
	assert.True(t, b.as("producer").subscribe(topic, "s"), "consume granted on the topic, produce on the namespace")

	// Kept in the namespace's auth_policies.destination_auth, as Pulsar's.
	code, body = b.do("admin", http.MethodGet, "/admin/v2/namespaces/private/auth", "")
	require.Equal(t, http.StatusOK, code, body)
	var pol struct {
		Auth struct {
			Destination map[string]map[string][]string `json:"destination_auth"`
		} `json:"auth_policies"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &pol))
	assert.Equal(t, map[string][]string{"alice": {"produce"}, "producer": {"consume"}}, pol.Auth.Destination[topic])

	// Revoke takes effect at once; a role without a topic-level grant is 412.
	code, body = b.do("admin", http.MethodDelete, topicPermsPath+"/alice", "")
	require.Equal(t, http.StatusNoContent, code, body)
	assert.False(t, b.as("alice").produce(topic))
	code, _ = b.do("admin", http.MethodDelete, topicPermsPath+"/alice", "")
	assert.Equal(t, http.StatusPreconditionFailed, code)
	code, _ = b.do("admin", http.MethodDelete, topicPermsPath+"/consumer", "")
	assert.Equal(t, http.StatusPreconditionFailed, code, "consumer's grant is the namespace's")

	code, _ = b.do("admin", http.MethodPost, topicPermsPath+"/alice", `["fly"]`)
	assert.Equal(t, http.StatusBadRequest, code)
}

// TestConcurrentTopicGrantsAllStay: grants of one topic's permissions (and
// of subscription permissions) at the same time are each kept (a
// read-modify-write of the namespace's policy field would lose some).
func TestConcurrentTopicGrantsAllStay(t *testing.T) {
	b := newAuthzBroker(t, "")
	const n = 16
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := range n {
		wg.Go(func() {
			codes[i], _ = b.do("admin", http.MethodPost, fmt.Sprintf("%s/role-%d", topicPermsPath, i), `["produce"]`)
		})
	}
	wg.Wait()
	_, body := b.do("admin", http.MethodGet, topicPermsPath, "")
	var perms map[string][]string
	require.NoError(t, json.Unmarshal([]byte(body), &perms))
	for i := range n {
		assert.Equal(t, http.StatusNoContent, codes[i])
		assert.Equal(t, []string{"produce"}, perms[fmt.Sprintf("role-%d", i)], "role-%d", i)
	}

	// So are subscription permissions granted at once.
	for i := range n {
		wg.Go(func() {
			codes[i], _ = b.do("admin", http.MethodPost, fmt.Sprintf("/admin/v2/namespaces/private/auth/permissions/subscription/sub-%d", i), `["r"]`)
		})
	}
	wg.Wait()
	_, body = b.do("admin", http.MethodGet, "/admin/v2/namespaces/private/auth/permissions/subscription", "")
	var subs map[string][]string
	require.NoError(t, json.Unmarshal([]byte(body), &subs))
	for i := range n {
		assert.Equal(t, http.StatusNoContent, codes[i])
		assert.Equal(t, []string{"r"}, subs[fmt.Sprintf("sub-%d", i)], "sub-%d", i)
	}
}

func TestTopicPermissionsOfAPartitionedTopicCoverItsPartitions(t *testing.T) {
	b := newAuthzBroker(t, "")
	require.NoError(t, b.CreatePartitionedTopic("persistent://private/auth/p", 2))
	code, body := b.do("admin", http.MethodPost, "/admin/v2/persistent/private/auth/p/permissions/alice", `["produce","consume"]`)
	require.Equal(t, http.StatusNoContent, code, body)
	rc := b.as("alice")
	assert.True(t, rc.produce("persistent://private/auth/p-partition-1"))
	assert.True(t, b.as("alice").subscribe("persistent://private/auth/p-partition-0", "s"))
}

func TestTopicPermissionsAreTheTenantAdmins(t *testing.T) {
	b := newAuthzBroker(t, "")
	for _, c := range []struct {
		role, method, path string
		want               int
	}{
		{"tadmin", http.MethodPost, topicPermsPath + "/alice", http.StatusNoContent},
		{"tadmin", http.MethodGet, topicPermsPath, http.StatusOK},
		// Pulsar's validateAdminAccessForTenant answers 401.
		{"producer", http.MethodGet, topicPermsPath, http.StatusUnauthorized},
		{"producer", http.MethodPost, topicPermsPath + "/producer", http.StatusUnauthorized},
		{"alice", http.MethodDelete, topicPermsPath + "/alice", http.StatusUnauthorized},
		{"", http.MethodGet, topicPermsPath, http.StatusUnauthorized},
	} {
		body := ""
		if c.method == http.MethodPost {
			body = `["consume"]`
		}
		code, text := b.do(c.role, c.method, c.path, body)
		assert.Equal(t, c.want, code, "%s %s as %q: %s", c.method, c.path, c.role, text)
	}
}

// topicsOfNamespace sends GET_TOPICS_OF_NAMESPACE and returns the answer:
// the response, or the error.
func (c *rawClient) topicsOfNamespace(ns string) (*proto.CommandGetTopicsOfNamespaceResponse, *proto.CommandError) {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_GET_TOPICS_OF_NAMESPACE.Enum(), GetTopicsOfNamespace: &proto.CommandGetTopicsOfNamespace{
		RequestId: gproto.Uint64(9), Namespace: gproto.String(ns)}})
	for {
		f, err := c.next()
		if err != nil {
			c.t.Fatal(err)
		}
		switch f.Cmd.GetType() {
		case proto.BaseCommand_GET_TOPICS_OF_NAMESPACE_RESPONSE:
			return f.Cmd.GetGetTopicsOfNamespaceResponse(), nil
		case proto.BaseCommand_ERROR:
			return nil, f.Cmd.GetError()
		}
	}
}

// TestTopicListingNeedsANamespaceGrant: GET_TOPICS_OF_NAMESPACE and
// WATCH_TOPIC_LIST are Pulsar's NamespaceOperation.GET_TOPICS: tenant
// admins and roles the namespace grants produce or consume; a grant on one
// topic is not enough.
func TestTopicListingNeedsANamespaceGrant(t *testing.T) {
	b := newAuthzBroker(t, "")
	require.True(t, b.as("producer").produce("persistent://private/auth/listed"))
	code, body := b.do("admin", http.MethodPost, topicPermsPath+"/alice", `["produce","consume"]`)
	require.Equal(t, http.StatusNoContent, code, body)
	for _, c := range []struct {
		role string
		ok   bool
	}{{"admin", true}, {"tadmin", true}, {"producer", true}, {"consumer", true}, {"alice", false}, {"nobody", false}} {
		resp, cerr := b.as(c.role).topicsOfNamespace("private/auth")
		if c.ok {
			if assert.Nil(t, cerr, c.role) {
				assert.Contains(t, resp.GetTopics(), "persistent://private/auth/listed", c.role)
			}
		} else if assert.NotNil(t, cerr, c.role) {
			assert.Equal(t, proto.ServerError_AuthorizationError, cerr.GetError(), c.role)
			assert.Equal(t, "Proxy Client is not authorized to GetTopicsOfNamespace", cerr.GetMessage())
		}

		before := b.watcherConns()
		w := b.as(c.role)
		w.sendWatch(11, 1, "private/auth", "persistent://private/auth/.*", nil)
		if c.ok {
			assert.Contains(t, w.expectWatchSuccess().GetTopic(), "persistent://private/auth/listed", c.role)
			continue
		}
		e := w.expect(proto.BaseCommand_ERROR).GetError()
		assert.Equal(t, proto.ServerError_AuthorizationError, e.GetError(), c.role)
		assert.Equal(t, uint64(11), e.GetRequestId())
		assert.Equal(t, before, b.watcherConns(), "a refused watcher is not registered (%s)", c.role)
	}
	// The admin API's list is the same operation.
	code, _ = b.do("alice", http.MethodGet, "/admin/v2/namespaces/private/auth/topics", "")
	assert.Equal(t, http.StatusForbidden, code)
	code, _ = b.do("alice", http.MethodGet, "/admin/v2/persistent/private/auth", "")
	assert.Equal(t, http.StatusForbidden, code)
	code, _ = b.do("consumer", http.MethodGet, "/admin/v2/persistent/private/auth", "")
	assert.Equal(t, http.StatusOK, code)
}

// watcherConns counts the connections with a topic-list watcher.
func (b *authzBroker) watcherConns() int {
	b.srv.Watch.Mu.Lock()
	defer b.srv.Watch.Mu.Unlock()
	return len(b.srv.Watch.ByConn)
}

// TestDeletedTopicLosesItsPermissions: deleting a topic drops its
// topic-level permissions, as Pulsar does, so a topic created again under
// the name does not inherit them.
func TestDeletedTopicLosesItsPermissions(t *testing.T) {
	b := newAuthzBroker(t, "")
	const topic = "persistent://private/auth/t"
	code, body := b.do("admin", http.MethodPost, topicPermsPath+"/alice", `["produce"]`)
	require.Equal(t, http.StatusNoContent, code, body)
	require.True(t, b.as("alice").produce(topic), "granted on the topic")

	// force: the raw producer's connection may still be attached.
	code, body = b.do("admin", http.MethodDelete, "/admin/v2/persistent/private/auth/t?force=true", "")
	require.Equal(t, http.StatusNoContent, code, body)
	assert.False(t, b.as("alice").produce(topic), "the grant went with the topic")
	code, body = b.do("admin", http.MethodGet, "/admin/v2/namespaces/private/auth", "")
	require.Equal(t, http.StatusOK, code, body)
	assert.NotContains(t, body, topic)
}
