package admin

import (
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// topic resolves the topic named by the path ({domain}/{tenant}/{ns}/{topic})
// and checks its namespace exists.
func (rq *adminReq) topic() (engine.TopicName, error) {
	name, err := engine.ParseTopic(rq.p["domain"] + "://" + rq.p["tenant"] + "/" + rq.p["ns"] + "/" + rq.p["topic"])
	if err != nil {
		return name, engine.RestErr(http.StatusPreconditionFailed, "Invalid topic name: %v", err)
	}
	if !rq.b.Eng.Pol().HasNamespace(name.Namespace) {
		return name, engine.RestErr(http.StatusNotFound, "Namespace does not exist")
	}
	return name, nil
}

func isNotFound(err error) bool { return errors.Is(err, engine.ErrTopicNotFound) }

func topicNotFound(name engine.TopicName) error {
	return engine.RestErr(http.StatusNotFound, "Topic %s not found", name.Full)
}

// partitionsBody reads the number of partitions in either form the admin
// clients send: a bare JSON number or {"partitions": N, "properties": {...}}.
func partitionsBody(rq *adminReq) (int, map[string]string, error) {
	if !rq.hasBody() {
		return 0, nil, engine.RestErr(http.StatusBadRequest, "Missing number of partitions")
	}
	var n int
	if err := json.Unmarshal(rq.body, &n); err == nil {
		return n, nil, nil
	}
	var obj struct {
		Partitions *int              `json:"partitions"`
		Properties map[string]string `json:"properties"`
	}
	if err := json.Unmarshal(rq.body, &obj); err != nil || obj.Partitions == nil {
		return 0, nil, engine.RestErr(http.StatusBadRequest, "Cannot parse the number of partitions from the request body")
	}
	return *obj.Partitions, obj.Properties, nil
}

// getPartitions answers Pulsar's PartitionedTopicMetadata. A topic that does
// not exist has 0 partitions, unless checkAllowAutoCreation is set: then it
// is 404 when auto creation is off, and created as the auto-creation rule
// says when it is on (as the binary protocol's lookup does).
func getPartitions(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	n := rq.b.Eng.PartitionCountOf(name)
	if n == 0 && !rq.b.Eng.TopicExists(name) && rq.flag("checkAllowAutoCreation") {
		if !rq.b.Eng.AutoTopicAllowed(name) {
			return nil, engine.RestErr(http.StatusNotFound, "Topic %s does not exist", name.Full)
		}
		if n, err = rq.b.Eng.AutoCreatePartitions(name); err != nil {
			if err == engine.ErrTooManyPartitionedTopics {
				return nil, engine.RestErr(http.StatusPreconditionFailed, engine.MsgMaxTopicsPerSpace)
			}
			return nil, err
		}
	}
	if n > 1 {
		if err := rq.checkClientVersion(); err != nil {
			return nil, err // admin_client_version.go
		}
	}
	return engine.PartitionedMetadata{Partitions: n}, nil
}

// checkPartitionCount refuses a partition count out of (0, max], max being
// maxPartitions or the broker's Limits.MaxNumPartitionsPerPartitionedTopic
// when lower (limits.go).
func (b *Web) checkPartitionCount(n int) error {
	switch most := b.Eng.MaxPartitionsAllowed(); {
	case n <= 0:
		return engine.RestErr(http.StatusNotAcceptable, "Number of partitions should be more than 0")
	case n > most:
		return engine.RestErr(http.StatusNotAcceptable, "Number of partitions should be less than or equal to %d", most)
	}
	return nil
}

func putPartitions(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	n, props, err := partitionsBody(rq)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		// Pulsar checks the namespace's max topics first (limits.go).
		if err := rq.b.Eng.RefuseNewTopicREST(name, n); err != nil {
			return nil, err
		}
	}
	if err := rq.b.checkPartitionCount(n); err != nil {
		return nil, err
	}
	if name.Partition >= 0 {
		return nil, engine.RestErr(http.StatusPreconditionFailed, "Partitioned Topic Name should not contain '-partition-'")
	}
	if rq.b.Eng.PartitionCount(name.Full) > 0 || rq.b.Eng.TopicExists(name) {
		return nil, engine.RestErr(http.StatusConflict, "This topic already exists")
	}
	if err := rq.b.Eng.SetPartitions(name.Full, n); err != nil {
		return nil, err
	}
	rq.b.Eng.NotifyTopicsChanged() // the topic-list watchers (engine.go)
	return nil, rq.b.setTopicProperties(name, props)
}

// postPartitions grows a partitioned topic; clients that watch partition
// counts (PARTITIONED_METADATA) see the new partitions.
func postPartitions(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	n, _, err := partitionsBody(rq)
	if err != nil {
		return nil, err
	}
	if err := rq.b.checkPartitionCount(n); err != nil {
		return nil, err
	}
	cur := rq.b.Eng.PartitionCountOf(name)
	switch {
	case cur == 0:
		return nil, engine.RestErr(http.StatusNotFound, "Partitioned topic %s does not exist", name.Full)
	case n < cur:
		return nil, engine.RestErr(http.StatusUnprocessableEntity, "Desired partitions %d can't be less than the current partitions %d", n, cur)
	case n == cur:
		return nil, nil
	}
	subs, err := rq.durableSubscriptions(name)
	if err != nil {
		return nil, err
	}
	if err := rq.listChanged(rq.b.Eng.SetPartitions(name.Full, n)); err != nil {
		return nil, err
	}
	return nil, rq.addSubscriptions(name, cur, subs)
}

// durableSubscriptions returns the names of the durable subscriptions of
// any partition of name.
func (rq *adminReq) durableSubscriptions(name engine.TopicName) ([]string, error) {
	seen := map[string]bool{}
	err := rq.forEachPartition(name, false, func(t *engine.Topic) error {
		for _, n := range t.DurableSubscriptionNames() {
			seen[n] = true
		}
		return nil
	})
	if isNotFound(err) {
		return nil, nil // no partition was used yet
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, err
}

// addSubscriptions creates subs on the partitions of name from index from
// on, at their earliest message, as Pulsar creates a partitioned topic's
// subscriptions on the partitions it grows by: a consumer at Latest then
// misses nothing published to a new partition before it attached.
func (rq *adminReq) addSubscriptions(name engine.TopicName, from int, subs []string) error {
	if len(subs) == 0 {
		return nil
	}
	for _, p := range rq.b.partitionsOf(name)[from:] {
		t, err := rq.b.Eng.TopicForUse(p)
		if err != nil {
			return err
		}
		if err := t.Call(func() { t.AddMissingSubscriptions(subs) }); err != nil {
			return err
		}
	}
	return nil
}

func deletePartitions(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	if rq.b.Eng.PartitionCountOf(name) == 0 {
		return nil, engine.RestErr(http.StatusNotFound, "Partitioned topic %s does not exist", name.Full)
	}
	return nil, rq.listChanged(rq.b.deletePartitioned(name, rq.flag("force")))
}

// putTopic creates a non-partitioned topic.
func putTopic(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	var props map[string]string
	if err := rq.decode(&props); err != nil {
		return nil, err
	}
	if rq.b.Eng.PartitionCountOf(name) > 0 || rq.b.Eng.TopicExists(name) {
		return nil, engine.RestErr(http.StatusConflict, "This topic already exists")
	}
	if err := rq.b.Eng.RefuseNewTopicREST(name, 1); err != nil {
		return nil, err // limits.go
	}
	if _, err = rq.b.Eng.GetTopic(name, true); err != nil {
		return nil, err
	}
	return nil, rq.b.setTopicProperties(name, props)
}

func listTopics(rq *adminReq) (any, error) {
	ns, err := rq.namespace()
	if err != nil {
		return nil, err
	}
	mode := "PERSISTENT"
	if rq.p["domain"] == "non-persistent" {
		mode = "NON_PERSISTENT"
	}
	return rq.b.Eng.NamespaceTopics(ns, mode), nil
}

func listPartitionedTopics(rq *adminReq) (any, error) {
	ns, err := rq.namespace()
	if err != nil {
		return nil, err
	}
	out := []string{}
	for base, n := range rq.b.Eng.PartitionedTopics() {
		if tn, err := engine.ParseTopic(base); err == nil && n > 0 && tn.Namespace == ns && tn.Domain == rq.p["domain"] {
			out = append(out, base)
		}
	}
	return sortedNames(out), nil
}

// partitionsOf returns the topics an operation on name covers: its
// partitions when it is partitioned, else itself.
func (b *Web) partitionsOf(name engine.TopicName) []engine.TopicName {
	n := b.Eng.PartitionCountOf(name)
	if n == 0 {
		return []engine.TopicName{name}
	}
	out := make([]engine.TopicName, 0, n)
	for i := range n {
		if p, err := engine.ParseTopic(engine.PartitionName(name.Full, i)); err == nil {
			out = append(out, p)
		}
	}
	return out
}

func unloadTopic(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	if rq.b.Eng.PartitionCountOf(name) == 0 && !rq.b.Eng.TopicExists(name) {
		return nil, topicNotFound(name)
	}
	return nil, rq.b.Eng.Unload(name.Full)
}

// loaded returns the topic for an admin operation that needs it to exist:
// 404 otherwise; a partitioned topic's parent is refused with 405 by
// operations that need one ledger.
func (rq *adminReq) loaded(name engine.TopicName) (*engine.Topic, error) {
	if rq.b.Eng.PartitionCountOf(name) > 0 {
		return nil, engine.RestErr(http.StatusMethodNotAllowed, "%s is a partitioned topic: use one of its partitions", name.Full)
	}
	t, err := rq.b.Eng.GetTopic(name, false)
	if isNotFound(err) {
		return nil, topicNotFound(name)
	}
	return t, err
}

// onTopic runs f on the topic goroutine; an unload racing with it is
// retried once with the reloaded topic.
func (rq *adminReq) onTopic(name engine.TopicName, f func(t *engine.Topic)) error {
	for attempt := 0; ; attempt++ {
		t, err := rq.loaded(name)
		if err != nil {
			return err
		}
		err = t.Call(func() { f(t) })
		if !errors.Is(err, engine.ErrTopicClosed) || attempt > 0 {
			return err
		}
	}
}

func terminateTopic(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	if rq.b.Eng.PartitionCountOf(name) > 0 {
		return nil, engine.RestErr(http.StatusMethodNotAllowed, "Termination of a partitioned topic is not allowed")
	}
	if err := rq.b.Eng.Pol().SetTerminated(name.Full); err != nil {
		return nil, err
	}
	var id engine.MessageIDJSON
	err = rq.onTopic(name, func(t *engine.Topic) { id = t.TerminateTopic() })
	return id, err
}

func lastMessageID(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	var id engine.MessageIDJSON
	err = rq.onTopic(name, func(t *engine.Topic) { id = t.LastMessageJSON() })
	return id, err
}

// parseInt64 parses a path parameter; bad input is a 400... or Pulsar's 412
// for the ids of a message, which it validates as preconditions.
func parseInt64(s, what string) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, engine.RestErr(http.StatusBadRequest, "Invalid %s %q", what, s)
	}
	return v, nil
}
